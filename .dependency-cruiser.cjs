/**
 * The import rules of apps/ and libs/ (`npm run lint:deps`, run by CI before the tests).
 *
 * ALLOWED_IMPORTS is the allow-list of edges between libraries, the same list as the table
 * "Allowed imports" in docs/architecture.md (test/architecture.e2e-spec.ts checks that they
 * agree). A library is the folder `libs/<name>/`; an `@app/<name>` import resolves to it through
 * the tsconfig paths. Apps may import any library; no library imports an app; no cycles anywhere.
 */
const ALLOWED_IMPORTS = {
  common: [],
  config: [],
  database: ['config', 'common'],
  web: ['config', 'common'],
  observability: ['config'],
  audit: ['observability', 'database', 'config', 'common'],
  'rate-limit': ['database', 'config'],
  outbound: [],
  tenancy: ['audit', 'database', 'common'],
  identity: ['outbound', 'observability', 'tenancy', 'credential-store', 'audit', 'database', 'config', 'common'],
  capabilities: [],
  'credential-store': ['capabilities', 'audit', 'database', 'common'],
  people: ['identity', 'tenancy', 'credential-store', 'database', 'rate-limit', 'audit', 'config', 'common'],
  credentials: ['credential-store', 'people', 'capabilities', 'identity', 'tenancy', 'audit', 'observability', 'database', 'web', 'config', 'common'],
  'scim-tokens': ['people', 'credentials', 'credential-store', 'audit', 'config', 'common'],
  tasks: ['capabilities', 'audit', 'database', 'common'],
  projects: ['tenancy', 'credential-store', 'audit', 'common'],
  organizations: ['projects', 'people', 'tenancy', 'credential-store', 'credentials', 'capabilities', 'audit', 'common'],
  auth: ['people', 'identity', 'tenancy', 'credential-store', 'credentials', 'audit', 'web', 'config', 'common'],
  oauth: ['outbound', 'identity', 'people', 'policy', 'credential-store', 'credentials', 'capabilities', 'tenancy', 'audit', 'rate-limit', 'web', 'config', 'common', 'database'],
  'service-keys': ['projects', 'credential-store', 'credentials', 'capabilities', 'tenancy', 'audit', 'common'],
  'api-keys': ['people', 'credential-store', 'credentials', 'capabilities', 'audit', 'common'],
  discovery: ['credentials', 'capabilities', 'config'],
  health: ['credentials', 'database'],
  'audit-sinks': ['outbound', 'credentials', 'audit', 'observability', 'config', 'common'],
  policy: ['credential-store', 'credentials', 'capabilities', 'tenancy', 'outbound', 'audit', 'database', 'config', 'common'],
  mcp: ['policy', 'capabilities', 'credentials', 'rate-limit', 'audit', 'observability', 'config', 'common'],
  sso: ['people', 'identity', 'tenancy', 'credentials', 'rate-limit', 'audit', 'web', 'config', 'common'],
  scim: ['scim-tokens', 'people', 'identity', 'tenancy', 'credentials', 'audit', 'config', 'common'],
  dashboard: ['identity', 'scim-tokens', 'projects', 'people', 'service-keys', 'api-keys', 'audit-sinks', 'oauth', 'policy', 'tenancy', 'credential-store', 'credentials', 'capabilities', 'audit', 'web', 'config', 'common'],
};

const alternatives = (names) => names.map((n) => n.replace(/[-]/g, '\\-')).join('|');
const LIBS = Object.keys(ALLOWED_IMPORTS);

/** One rule per library: an import of another library outside its allowed list is an error. */
const libraryRules = LIBS.map((lib) => ({
  name: `lib-${lib}-imports`,
  comment: `libs/${lib} may import only: ${ALLOWED_IMPORTS[lib].join(', ') || 'no other library'} (docs/architecture.md, "Allowed imports")`,
  severity: 'error',
  from: { path: `^libs/${alternatives([lib])}/` },
  to: { path: '^libs/[^/]+/', pathNot: `^libs/(${alternatives([lib, ...ALLOWED_IMPORTS[lib]])})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle among apps/ and libs/.',
      severity: 'error',
      from: { path: '^(apps|libs)/' },
      to: { circular: true },
    },
    {
      name: 'lib-not-in-allow-list',
      comment: 'Every library under libs/ has a line in the allow-list (docs/architecture.md, "Allowed imports").',
      severity: 'error',
      from: { path: '^libs/', pathNot: `^libs/(${alternatives(LIBS)})/` },
      to: { path: '^(apps|libs)/' },
    },
    {
      name: 'credential-store-repositories-inside',
      comment: 'Only libs/credential-store queries its tables: others reach them through its services, never its repositories.',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: '^libs/credential-store/' },
      to: { path: '^libs/credential-store/src/repositories/' },
    },
    {
      name: 'no-lib-imports-app',
      comment: 'A library never imports an app.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve (a misspelt @app alias) would escape the rules above.',
      severity: 'error',
      from: { path: '^(apps|libs)/' },
      to: { couldNotResolve: true },
    },
    ...libraryRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.cjs', '.mjs', '.json', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
