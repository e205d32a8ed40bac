import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProcess } from '@app/database';
import { GatewayProcess, spawnGateway, startGatewayProcess, processEnded } from './helpers/gateway-process';
import { freePort } from './helpers/postgres-server';
import { testDatabaseKind } from './helpers/test-state';

const ROOT = join(__dirname, '..');

/** Waits for a child process to end and reports how, with what it printed. */

/** The real command line (`apps/cli/src/main.ts`, compiled on the fly like the service). */
function runCliProcess(cwd: string, args: string[], env: Record<string, string>) {
  return processEnded(
    spawn(process.execPath, ['-r', join(ROOT, 'test/helpers/register-ts.cjs'), join(ROOT, 'apps/cli/src/main.ts'), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

async function postJson(url: string, body: unknown): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

/**
 * One process per embedded data folder (issue: a second `npm start` or the command line opened the
 * running service's folder, and what the command line wrote was lost). Real processes on one
 * DATA_DIR; needs no PostgreSQL, so it runs in the embedded run only.
 */
(testDatabaseKind() === 'embedded' ? describe : describe.skip)('the embedded data folder has one owner', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'ag-lock-'));
  const dataDir = join(cwd, 'data');
  const lockFile = join(dataDir, 'pg.lock');
  const account = { email: 'owner@example.test', password: 'a long passphrase for the lock test', name: 'Olive Owner' };
  let first: GatewayProcess | undefined;
  let second: GatewayProcess | undefined;

  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('a second service and the command line refuse at once, naming the holder; a killed holder is taken over', async () => {
    first = await startGatewayProcess(await freePort(), { DATA_DIR: dataDir });
    expect(await postJson(`${first.url}/api/auth/signup`, { ...account, organizationName: 'Lock Ltd' })).toBe(201);

    const port = await freePort();
    // "At once": the refusal does not wait for the holder (which runs until this test stops it, so a
    // start that waited would never end and the test would time out); how fast is not measured here.
    const refused = await processEnded(spawnGateway(cwd, { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'error' }));
    expect(refused.code).toBe(75);
    expect(refused.stderr).toContain(`Agent Gateway refused to start. The data folder ${dataDir}/pg is in use by process ${first.child.pid} (`);
    expect(refused.stderr).toMatch(/apps\/gateway\/src\/main\.ts\) since \d{4}-\d\d-\d\dT/);
    expect(refused.stderr).toContain('stop that process first');
    await expect(fetch(`http://127.0.0.1:${port}/health/live`)).rejects.toThrow();

    const cli = await runCliProcess(cwd, ['create-admin', '--email', 'late@example.test', '--name', 'Lee Late', '--organization', 'Late Ltd'], {
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'another long passphrase here',
    });
    expect(cli.code).toBe(75);
    expect(cli.stdout).not.toContain('Created');
    expect(cli.stderr).toContain(`is in use by process ${first.child.pid}`);
    // The refused command wrote nothing: the running service does not know that account.
    expect(await postJson(`${first.url}/api/auth/login`, { email: 'late@example.test', password: 'another long passphrase here' })).toBe(401);

    // Killed with -9: the lock file stays behind, names a dead process, and is taken over.
    const exited = new Promise((resolve) => first!.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    expect(existsSync(lockFile)).toBe(true);
    second = await startGatewayProcess(await freePort(), { DATA_DIR: dataDir });
    expect(await postJson(`${second.url}/api/auth/login`, { email: account.email, password: account.password })).toBe(200);

    // Stopped cleanly, it leaves the folder free: the command line now works.
    await second.stop();
    second = undefined;
    expect(existsSync(lockFile)).toBe(false);
    const created = await runCliProcess(cwd, ['create-admin', '--email', 'late@example.test', '--name', 'Lee Late', '--organization', 'Late Ltd'], {
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'another long passphrase here',
    });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created late@example.test');
  }, 240_000);
});

/**
 * Beside a running service the command line prints the one sentence and the fix, never a stack:
 * a live process (a stand-in holder) is written into the folder's lock as the service would be.
 */
(testDatabaseKind() === 'embedded' ? describe : describe.skip)('the command line beside a running service', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'ag-lock-cli-'));
  const dataDir = join(cwd, 'data');
  const holder = spawn('sleep', ['600'], { stdio: 'ignore' });

  beforeAll(() => {
    mkdirSync(join(dataDir, 'pg'), { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
    writeFileSync(join(dataDir, 'pg.lock'), JSON.stringify({ ...describeProcess(holder.pid!), command: 'node apps/gateway/src/main.ts' }));
  });
  afterAll(() => {
    holder.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  });

  it.each([
    [['migrate'], 'Nothing is needed while it runs: the service applied the migrations when it started.'],
    [['create-admin', '--email', 'x@example.test', '--name', 'X', '--organization', 'X Ltd'], 'POST /api/auth/signup'],
    [['reset-link', '--email', 'x@example.test'], 'POST /api/organizations/:orgId/members/:userId/reset-link'],
    [['release-email', '--email', 'x@example.test'], 'It has no REST equivalent (an address is released by the operator only).'],
    [
      ['verify-domain', '--organization', '00000000-0000-4000-8000-000000000000', '--domain', 'x.example.com'],
      'POST /api/organizations/:orgId/identity-provider/domains/:domain/verify',
    ],
  ])('%j prints the sentence and the fix, no stack trace, and exits 75', async (args, fix) => {
    const cli = await runCliProcess(cwd, args, { DATA_DIR: dataDir, ADMIN_PASSWORD: 'another long passphrase here' });
    expect(cli.code).toBe(75);
    expect(cli.stdout).toBe('');
    const lines = cli.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^The data folder .*/pg is in use by process ${holder.pid} \\(node apps/gateway/src/main\\.ts\\) since `));
    expect(lines[1]).toContain(`Fix: stop the service (process ${holder.pid}) and run this command again.`);
    expect(lines[1]).toContain(fix);
    expect(cli.stderr).not.toMatch(/\n\s+at |ExceptionHandler|DataFolderLockedError/);
  }, 60_000);
});
