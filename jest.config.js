/** Jest: unit specs beside the code, e2e specs under test/. NestJS 12, jose, openid-client, oauth4webapi,
 * @marcbachmann/cel-js and oidc-provider (the
 * tests' identity provider) ship ES modules only, so the swc transform also runs on those packages. */
const swc = ['@swc/jest', require('./test/helpers/swc-options.cjs')];

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj|cj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|@electric-sql|jose|oidc-provider|openid-client|oauth4webapi|@marcbachmann/cel-js)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  moduleNameMapper: { '^@app/([^/]+)$': '<rootDir>/libs/$1/src', '^@app/([^/]+)/(.*)$': '<rootDir>/libs/$1/src/$2' },
};

module.exports = {
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      // Every audit record checked against its OCSF schema and for secrets (docs/testing.md).
      setupFilesAfterEnv: ['<rootDir>/test/helpers/audit-record-check.ts'],
      slowTestThreshold: 30,
    },
  ],
};
