/**
 * The one swc configuration for running the TypeScript sources without a build: Jest's
 * transform and the require hook of child processes (register-ts.cjs) both use it, so tests
 * compile the code exactly as each other.
 */
module.exports = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    keepClassNames: true,
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};
