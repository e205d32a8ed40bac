import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'pg';
import { EmbeddedPostgres } from '@app/database';
import { GatewayProcess, startGatewayProcess } from './helpers/gateway-process';
import { freePort } from './helpers/postgres-server';
import { ClonedDatabase, cloneTemplateDatabase, withClient } from './helpers/template-database';
import { readTestState } from './helpers/test-state';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(url: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as Record<string, any> };
}

/**
 * A login whose body arrives in two parts: the request is in flight (headers in, body pending)
 * until `finish()` sends the rest. Resolves with the status it was answered with.
 */
function slowLogin(base: string, password: string) {
  const body = JSON.stringify({ email: 'nobody@example.test', password });
  const half = Math.floor(body.length / 2);
  const url = new URL('/api/auth/login', base);
  let answered!: Promise<number>;
  const req = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  answered = new Promise((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, half));
  return { answered, finish: () => req.end(body.slice(half)) };
}

/**
 * SIGTERM to the real process while requests are in flight: readiness answers 503 at once, the
 * service keeps serving for SHUTDOWN_DELAY_SECONDS, then closes its listener, answers every
 * request in flight, writes the pending last-used time and exits 0.
 */
describe('graceful shutdown', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'ag-shutdown-'));
  let gateway: GatewayProcess | undefined;
  let databaseUrl: string | undefined;
  let database: ClonedDatabase | undefined;

  beforeAll(async () => {
    const { postgres } = readTestState();
    if (postgres) {
      database = await cloneTemplateDatabase(postgres.port, 'shut');
      databaseUrl = database.url;
    }
  });

  afterAll(async () => {
    await gateway?.stop();
    await database?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** `last_used_at` of an API key, read from the database the stopped process used. */
  async function lastUsedAt(keyId: string): Promise<Date | null> {
    const read = (c: Client) =>
      c.query('SELECT last_used_at FROM api_keys WHERE id = $1', [keyId]).then((r) => (r.rows[0] as { last_used_at: Date | null }).last_used_at);
    if (databaseUrl) return withClient(databaseUrl, read);
    // The embedded folder is free again once the process has exited (its lock released).
    const embedded = await EmbeddedPostgres.start({ dataDir: join(cwd, 'data', 'pg'), maxConnections: 2 });
    try {
      return await withClient(embedded.url, read);
    } finally {
      await embedded.stop();
    }
  }

  it('drains: not ready at once, serves through the delay, answers every request in flight, flushes, exits 0', async () => {
    gateway = await startGatewayProcess(await freePort(), {
      DATA_DIR: join(cwd, 'data'),
      SHUTDOWN_DELAY_SECONDS: '3',
      SHUTDOWN_DRAIN_SECONDS: '30',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    const { url, child } = gateway;
    const signup = await call(`${url}/api/auth/signup`, {
      method: 'POST',
      body: { email: `ops-${randomUUID().slice(0, 8)}@example.test`, password: `pw-${randomUUID()}`, name: 'Otto Ops', organizationName: 'Ops Ltd' },
    });
    expect(signup.status).toBe(201);
    const created = await call(`${url}/api/organizations/${signup.body.organization.id}/api-keys`, {
      method: 'POST',
      token: signup.body.accessToken,
      body: { name: 'scraper', permissions: ['projects:read'] },
    });
    expect(created.status).toBe(201);
    // One use: its last-used time is pending in memory (written every ten seconds, or at shutdown).
    expect((await call(`${url}/api/organizations/${signup.body.organization.id}/projects`, { token: created.body.key })).status).toBe(200);

    const inFlight = Array.from({ length: 5 }, (_, i) => slowLogin(url, `wrong password ${i}`));
    await sleep(300);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');

    // The signal arrives asynchronously: readiness turns within moments, well inside the delay.
    const signalled = Date.now();
    let ready = await fetch(`${url}/health/ready`);
    while (ready.status === 200 && Date.now() - signalled < 1500) {
      await sleep(20);
      ready = await fetch(`${url}/health/ready`);
    }
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ statusCode: 503, message: 'Shutting down' });
    expect(ready.headers.get('connection')).toBe('close');
    // Still serving during the delay: a new request is answered normally.
    expect((await fetch(`${url}/health/live`)).status).toBe(200);

    // After the delay the listener is closed: new connections are refused...
    const deadline = Date.now() + 20_000;
    let refused = false;
    while (!refused && Date.now() < deadline) {
      refused = await fetch(`${url}/health/live`).then(
        () => false,
        () => true,
      );
      if (!refused) await sleep(100);
    }
    expect(refused).toBe(true);
    expect(child.exitCode).toBeNull();
    // ...while the requests in flight still get their answers.
    for (const request of inFlight) request.finish();
    expect(await Promise.all(inFlight.map((r) => r.answered))).toEqual([401, 401, 401, 401, 401]);

    expect(await exited).toBe(0);
    expect(await lastUsedAt(created.body.id)).toBeInstanceOf(Date);
  }, 180_000);
});
