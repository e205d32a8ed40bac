/**
 * A require hook that lets a child process run the TypeScript sources directly
 * (`node -r ./test/helpers/register-ts.cjs apps/gateway/src/main.ts`): it compiles each `.ts`
 * file with swc (the transform Jest uses) and resolves the `@app/<lib>` aliases. Tests use it to
 * start the real entry point without a build. It is test tooling, never used in production.
 */
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { transformSync } = require('@swc/core');
const swcOptions = require('./swc-options.cjs');

const root = join(__dirname, '..', '..');
const ALIAS = /^@app\/([^/]+)(\/.*)?$/;

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = ALIAS.exec(request);
  const target = alias ? join(root, 'libs', alias[1], 'src', alias[2] ?? '') : request;
  return resolveFilename.call(this, target, ...rest);
};

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), { ...swcOptions, filename });
  module._compile(code, filename);
};
