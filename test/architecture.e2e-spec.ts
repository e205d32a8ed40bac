import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The import rules (`.dependency-cruiser.cjs`, `npm run lint:deps`) and the table "Allowed
 * imports" of docs/architecture.md are one allow-list; and the rules do catch what they forbid.
 */
const ROOT = join(__dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Rule {
  name: string;
  to: { pathNot?: string };
}

/** The allow-list as the rule file enforces it: read back from each `lib-<name>-imports` rule's regex. */
function allowListOfRules(): Record<string, string[]> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const config = require(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: Rule[] };
  const out: Record<string, string[]> = {};
  for (const rule of config.forbidden) {
    const lib = /^lib-(.+)-imports$/.exec(rule.name)?.[1];
    if (!lib) continue;
    const group = /^\^libs\/\((.*)\)\/$/.exec(rule.to.pathNot ?? '')?.[1];
    if (group === undefined) throw new Error(`rule ${rule.name} has no pathNot of the form ^libs/(a|b)/`);
    const names = group.split('|').map((n) => n.replace(/\\/g, ''));
    out[lib] = names.filter((n) => n !== lib).sort();
  }
  return out;
}

/** The allow-list as docs/architecture.md writes it. */
function allowListOfDocs(): Record<string, string[]> {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const section = doc.split(/^## Allowed imports$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error('docs/architecture.md has no section "## Allowed imports"');
  const out: Record<string, string[]> = {};
  for (const line of section.split('\n')) {
    const row = /^\| `([a-z-]+)` \| (.*) \|$/.exec(line.trim());
    if (!row) continue;
    out[row[1]] = [...row[2].matchAll(/`([a-z-]+)`/g)].map((m) => m[1]).sort();
  }
  return out;
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}

/** Runs the rule file on `apps libs` of a directory, as `npm run lint:deps` does. */
function cruise(dir: string): Violation[] {
  const run = spawnSync(process.execPath, [DEPCRUISE, 'apps', 'libs', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (!run.stdout) throw new Error(`depcruise produced no output: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('import rules', () => {
  it('enforce the same allow-list that docs/architecture.md writes', () => {
    const rules = allowListOfRules();
    expect(Object.keys(rules).length).toBeGreaterThan(10);
    expect(allowListOfDocs()).toEqual(rules);
  });

  it("let the adapters of people and sign-in (auth, sso, scim, organizations, the dashboard) import none of each other, only the domain libraries", () => {
    const rules = allowListOfRules();
    const adapters = ['auth', 'sso', 'scim', 'organizations', 'dashboard'];
    const between = adapters.flatMap((from) => rules[from].filter((to) => adapters.includes(to)).map((to) => `${from} -> ${to}`));
    expect(between).toEqual([]);
  });

  it('allow no edge that no import uses (an unused edge is a door left open)', () => {
    const run = spawnSync(process.execPath, [DEPCRUISE, 'libs', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const modules = (JSON.parse(run.stdout) as { modules: { source: string; dependencies: { resolved: string }[] }[] }).modules;
    const used = new Set<string>();
    for (const module of modules) {
      const from = /^libs\/([^/]+)\//.exec(module.source)?.[1];
      for (const dependency of module.dependencies) {
        const to = /^libs\/([^/]+)\//.exec(dependency.resolved)?.[1];
        if (from && to && from !== to) used.add(`${from} -> ${to}`);
      }
    }
    const unused = Object.entries(allowListOfRules()).flatMap(([lib, allowed]) => allowed.map((to) => `${lib} -> ${to}`)).filter((edge) => !used.has(edge));
    expect(unused).toEqual([]);
  });

  describe('in a scratch copy of the tree with a wrong-way import and a cycle planted', () => {
    let dir: string;
    let violations: Violation[];

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'ag-deps-'));
      for (const entry of ['apps', 'libs', 'tsconfig.json', '.dependency-cruiser.cjs']) {
        cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
      }
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      writeFileSync(join(dir, 'libs/common/src/planted-wrong-way.ts'), "export { OAuthModule } from '@app/oauth';\n");
      writeFileSync(join(dir, 'libs/config/src/planted-a.ts'), "import { b } from './planted-b';\nexport const a = () => b;\n");
      writeFileSync(join(dir, 'libs/config/src/planted-b.ts'), "import { a } from './planted-a';\nexport const b = () => a;\n");
      violations = cruise(dir);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reports libs/common importing @app/oauth', () => {
      expect(violations).toContainEqual(
        expect.objectContaining({ from: 'libs/common/src/planted-wrong-way.ts', to: 'libs/oauth/src/index.ts', rule: expect.objectContaining({ name: 'lib-common-imports' }) }),
      );
    });

    it('reports the cycle', () => {
      const cycles = violations.filter((v) => v.rule.name === 'no-circular' && v.from.startsWith('libs/config/src/planted-'));
      expect(cycles).toHaveLength(1);
      expect(cycles[0].cycle?.map((c) => c.name).sort()).toEqual(['libs/config/src/planted-a.ts', 'libs/config/src/planted-b.ts']);
    });
  });
});

/** Every `.ts` file under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('table access', () => {
  // What runs SQL against a table: TypeORM's query builder and repositories, a raw query, and the
  // database library's statement helpers (`libs/database` itself, migrations included, is the plumbing).
  const QUERIES = /\.query\(|createQueryBuilder\(|getRepository\(|@InjectRepository\(|readStatement\(|runAtomically\(|queryAffected\(|queryReturning\(/;
  // The readiness probe's `SELECT 1` reads no table.
  const NO_TABLE = new Set(['libs/health/src/health.controller.ts']);

  it('tables are queried only in *.repository.ts and *directory*.ts files', () => {
    const outside = [...sourceFiles(join(ROOT, 'libs')), ...sourceFiles(join(ROOT, 'apps'))]
      .map((f) => f.slice(ROOT.length + 1))
      .filter((f) => !f.startsWith('libs/database/') && !f.endsWith('.spec.ts') && !/(\.repository|directory[^/]*)\.ts$/.test(f) && !NO_TABLE.has(f))
      .filter((f) => QUERIES.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(outside).toEqual([]);
  });
});

describe('nest-cli.json', () => {
  it('is a monorepo with one project per app and per library, each where the folder is', () => {
    const cli = JSON.parse(readFileSync(join(ROOT, 'nest-cli.json'), 'utf8')) as {
      monorepo: boolean;
      projects: Record<string, { type: string; root: string; sourceRoot: string }>;
    };
    expect(cli.monorepo).toBe(true);
    const expected: Record<string, { type: string; root: string; sourceRoot: string }> = {};
    for (const app of readdirSync(join(ROOT, 'apps'))) expected[app] = { type: 'application', root: `apps/${app}`, sourceRoot: `apps/${app}/src` };
    for (const lib of readdirSync(join(ROOT, 'libs'))) expected[lib] = { type: 'library', root: `libs/${lib}`, sourceRoot: `libs/${lib}/src` };
    const actual = Object.fromEntries(
      Object.entries(cli.projects).map(([name, p]) => [name, { type: p.type, root: p.root, sourceRoot: p.sourceRoot }]),
    );
    expect(actual).toEqual(expected);
  });
});
