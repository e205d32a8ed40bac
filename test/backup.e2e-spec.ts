import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CliIo, EXIT, runCli } from '../apps/cli/src/cli';
import { freePort } from './helpers/postgres-server';
import { startGatewayProcess, type GatewayProcess } from './helpers/gateway-process';

/**
 * Backup and restore of the embedded database (docs/operations.md, "Backup and restore"), as an
 * operator does it: the real service in its own process, `backup` while it runs, the database
 * folder wiped, `restore`, the service started again — every key, token and task works as it
 * did at the moment of the backup. Runs on its own data folder, whatever the suite's database.
 */
describe('backup and restore of the embedded database', () => {
  const root = mkdtempSync(join(tmpdir(), 'ag-backup-'));
  const dataDir = join(root, 'data');
  const backupFile = join(root, 'gateway.backup.tgz');
  const env = { DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'warn' };
  let gateway: GatewayProcess | undefined;

  afterAll(async () => {
    await gateway?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  async function cli(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      env,
      stdin: new PassThrough(),
      stdout: { write: (s: string) => ((stdout += s), true) },
      stderr: { write: (s: string) => ((stderr += s), true) },
    };
    const code = await runCli(argv, io);
    return { code, stdout, stderr };
  }

  async function call(base: string, path: string, init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) as Record<string, any> };
  }

  function tool(base: string, token: string, name: string, args: Record<string, unknown>) {
    return call(base, '/api/mcp', {
      token,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      headers: { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' },
    });
  }

  it('backs up while the service runs; after a wipe and a restore every token, key and task works as at the backup', async () => {
    // One port for both runs: the session's issuer is the service's BASE_URL.
    const port = await freePort();
    gateway = await startGatewayProcess(port, env);
    const base = gateway.url;

    // What a team builds: an organisation, a project, an API key, a service key and its project
    // token, a task made through MCP, and a second token that is then revoked.
    const signup = await call(base, '/api/auth/signup', {
      body: { email: `backup-${Date.now()}@example.test`, password: 'a long and unusual passphrase 42', name: 'Bea Backup', organizationName: 'Backups Ltd' },
    });
    expect(signup.status).toBe(201);
    const { accessToken: session, organization } = signup.json() as { accessToken: string; organization: { id: string } };
    const org = `/api/organizations/${organization.id}`;
    const project = (await call(base, `${org}/projects`, { token: session, body: { name: 'Kept' } })).json() as { id: string };
    const apiKey = (await call(base, `${org}/api-keys`, { token: session, body: { name: 'reader', permissions: ['projects:read'] } })).json()
      .key as string;
    const serviceKey = (await call(base, `${org}/agent-service-keys`, { token: session, body: { name: 'sync' } })).json() as { id: string };
    const other = (await call(base, `${org}/projects`, { token: session, body: { name: 'Other' } })).json() as { id: string };
    const derive = (projectId: string) => call(base, `${org}/agent-service-keys/${serviceKey.id}/tokens`, { token: session, body: { projectId } });
    const token = (await derive(project.id)).json() as { id: string; token: string };
    const revoked = (await derive(other.id)).json() as { id: string; token: string };
    expect((await call(base, `${org}/agent-service-keys/${serviceKey.id}/tokens/${revoked.id}/revoke`, { token: session, body: {} })).status).toBeLessThan(300);
    const kept = await tool(base, token.token, 'create_task', { title: 'made before the backup' });
    expect(kept.status).toBe(200);

    // The service holds the folder: a restore is refused, a backup is made by the service.
    const refused = await cli('restore', backupFile);
    expect(refused.code).toBe(EXIT.failed); // no file yet: checked before anything else
    const made = await cli('backup', backupFile);
    expect(made).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(made.stdout).toMatch(/^Backed up the embedded database to .*gateway\.backup\.tgz \(\d+ bytes; made by the running service\)\.\n$/);
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);
    const busy = await cli('restore', backupFile);
    expect(busy.code).toBe(EXIT.busy);
    expect(busy.stderr).toContain('Stop the service before restoring');

    // After the backup: a task that the restore must take away again.
    expect((await tool(base, token.token, 'create_task', { title: 'made after the backup' })).status).toBe(200);
    await gateway.stop();
    gateway = undefined;

    rmSync(join(dataDir, 'pg'), { recursive: true, force: true });
    const restored = await cli('restore', backupFile);
    expect(restored).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(existsSync(join(dataDir, 'pg'))).toBe(true);

    gateway = await startGatewayProcess(port, env);
    const again = gateway.url;
    const tasks = await tool(again, token.token, 'list_tasks', {});
    expect(tasks.status).toBe(200);
    expect(tasks.text).toContain('made before the backup');
    expect(tasks.text).not.toContain('made after the backup');
    expect((await call(again, `${org}/projects`, { token: apiKey })).text).toContain('Kept');
    expect((await call(again, `${org}/projects`, { token: session })).status).toBe(200);
    expect((await tool(again, revoked.token, 'list_tasks', {})).status).toBe(401);
    const third = (await call(again, `${org}/projects`, { token: session, body: { name: 'After the restore' } })).json() as { id: string };
    const fresh = (await call(again, `${org}/agent-service-keys/${serviceKey.id}/tokens`, { token: session, body: { projectId: third.id } })).json()
      .token as string;
    expect((await tool(again, fresh, 'list_tasks', {})).status).toBe(200);
  }, 240_000);

  it('refuses a file that is not a backup, and points PostgreSQL users to pg_dump', async () => {
    const bogus = join(root, 'bogus.tgz');
    require('node:fs').writeFileSync(bogus, 'not a tarball');
    const wrong = await cli('restore', bogus);
    expect(wrong.code).toBe(EXIT.failed);
    expect(wrong.stderr).toContain('is not a backup of the embedded database');
    const onPostgres = await runCli(['backup', backupFile], {
      env: { ...env, DATABASE_URL: 'postgres://u@127.0.0.1:1/db' },
      stdin: new PassThrough(),
      stdout: { write: () => true },
      stderr: { write: () => true },
    });
    expect(onPostgres).toBe(EXIT.usage);
  }, 60_000);
});
