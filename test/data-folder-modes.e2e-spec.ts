import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayProcess, spawnGateway, startGatewayProcess, processEnded } from './helpers/gateway-process';
import { freePort } from './helpers/postgres-server';
import { testDatabaseKind } from './helpers/test-state';

/** Every entry under `root` whose mode lets another user in: `path mode` lines (empty when all are private). */
function notPrivate(root: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    const expected = stat.isDirectory() ? 0o700 : 0o600;
    if (mode !== expected) found.push(`${path} 0${mode.toString(8)}`);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(root);
  return found;
}


/**
 * The embedded database's files are private to the service's user (another local user could read
 * and rewrite rows): the real entry point, a fresh DATA_DIR, modes checked after start.
 */
(testDatabaseKind() === 'embedded' ? describe : describe.skip)('the embedded data folder is private to the service', () => {
  const root = mkdtempSync(join(tmpdir(), 'ag-modes-'));
  let gateway: GatewayProcess | undefined;

  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a new DATA_DIR is created 0700 and every folder in it 0700, every file 0600', async () => {
    const dataDir = join(root, 'fresh', 'data');
    gateway = await startGatewayProcess(await freePort(), { DATA_DIR: dataDir });
    const ready = await fetch(`${gateway.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(dataDir, 'pg')).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(dataDir, 'pg')).length).toBeGreaterThan(10);
    expect(notPrivate(dataDir)).toEqual([]);
  }, 120_000);

  it('an existing DATA_DIR readable by others starts with a warning; files it holds from a looser past are made private', async () => {
    const dataDir = join(root, 'shared-read', 'data');
    mkdirSync(join(dataDir, 'pg'), { recursive: true });
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'pg'), 0o755);
    gateway = await startGatewayProcess(await freePort(), { DATA_DIR: dataDir });
    expect(gateway.stdout()).toContain(`The data folder ${dataDir} is readable by other users (mode 0755)`);
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o755);
    expect(notPrivate(join(dataDir, 'pg'))).toEqual([]);
  }, 120_000);

  it('an existing DATA_DIR writable by others is refused with one sentence naming the fix', async () => {
    const cwd = join(root, 'shared-write');
    const dataDir = join(cwd, 'data');
    mkdirSync(dataDir, { recursive: true });
    chmodSync(dataDir, 0o777);
    const refused = await processEnded(spawnGateway(cwd, { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'error' }));
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain(
      `Agent Gateway refused to start. The data folder ${dataDir} is writable by other users (mode 0777): they could read and rewrite the database. ` +
        `Make it private to the service's user (chmod 700 ${dataDir}) or point DATA_DIR at a folder that is.`,
    );
    expect(readdirSync(dataDir).filter((e) => e !== 'session-secret')).toEqual([]);
  }, 60_000);
});
