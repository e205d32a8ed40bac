import request from 'supertest';
import { Client } from 'pg';
import { generateToken, hashToken } from '@app/credential-store';
import { setBeforeCommitHook } from '@app/database';
import { createProject, createProjectWithToken } from './factories';
import { createOrganizationWithAdmin } from './factories/machine';
import { connectClient, registerClient, tokenRequest, TEST_REDIRECT_URI, pkcePair, authorizePath } from './factories/oauth';
import { findPostgresBin, haltPostgres, restartPostgres, startPostgres, stopPostgres, type PostgresServer } from './helpers/postgres-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/**
 * The database going away under a running service (docs/operations.md, "Database outages"): a
 * real PostgreSQL of this test's own is stopped as a crash would stop it (`pg_ctl stop -m
 * immediate`) and started again. Whatever the suite's database, this test needs the binaries.
 */
const bin = findPostgresBin();
const describeWithPostgres = bin ? describe : describe.skip;

process.env.AG_TEST_BEFORE_COMMIT_HOOK = '1';

describeWithPostgres('the database unavailable', () => {
  let pg: PostgresServer;
  let t: TestApp;

  beforeAll(async () => {
    // Commits acknowledged only once in the WAL: a crash must not lose what the service confirmed.
    pg = await startPostgres(bin!, { synchronous_commit: 'on' });
    const admin = new Client({ connectionString: pg.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE gateway');
    await admin.end();
    t = await startTestApp({ DATABASE_URL: pg.url('gateway'), DATABASE_POOL_SIZE: '4' });
  }, 60_000);

  afterAll(async () => {
    setBeforeCommitHook(undefined);
    await t?.close();
    if (pg) stopPostgres(pg);
  });

  afterEach(() => setBeforeCommitHook(undefined));

  /** Waits until `/health/ready` says ready again, as a load balancer would see it. */
  async function readyAgain(): Promise<number> {
    const started = Date.now();
    for (;;) {
      const res = await request(t.baseUrl).get('/health/ready');
      if (res.status === 200) return Date.now() - started;
      if (Date.now() - started > 20_000) throw new Error(`not ready 20 s after the database returned: ${res.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  function callTool(token: string, name = 'list_tasks', id: number | string = 7, path = '/api/mcp') {
    return request(t.baseUrl)
      .post(path)
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', '2025-06-18')
      .send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
  }

  it('answers every transport with 503 and Retry-After, and is ready again by itself when the database returns', async () => {
    const { organization, admin } = await createOrganizationWithAdmin(t.app, t.dataSource);
    const { token } = await createProjectWithToken(t.dataSource);
    const client = await registerClient(t.baseUrl);
    const session = { Authorization: `Bearer ${admin.session}` };
    await request(t.baseUrl).get('/health/ready').expect(200);

    haltPostgres(pg);
    try {
      const ready = await request(t.baseUrl).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.headers['retry-after']).toBe('5');
      expect(ready.body).toEqual({ statusCode: 503, message: 'Database unreachable', error: 'Service Unavailable' });

      const rest = await request(t.baseUrl).get(`/api/organizations/${organization.id}/projects`).set(session);
      expect(rest.status).toBe(503);
      expect(rest.headers['retry-after']).toBe('5');
      expect(rest.body).toEqual({
        statusCode: 503,
        message: expect.stringContaining('temporarily unavailable'),
        error: 'Service Unavailable',
        code: 'database_unavailable',
      });

      // The token's lookup fails: answered once the body is read, with the message's id, on both routes.
      for (const [path, id] of [['/api/mcp', 'call-1'], ['/api/mcp?via=router', 'call-2']]) {
        const mcp = await callTool(token, 'list_tasks', id, path);
        expect(mcp.status).toBe(503);
        expect(mcp.headers['retry-after']).toBe('5');
        expect(mcp.headers['content-type']).toMatch(/^application\/json/);
        expect(mcp.body).toEqual({
          jsonrpc: '2.0',
          id,
          error: { code: -32000, message: expect.stringContaining('temporarily unavailable'), data: { code: 'database_unavailable' } },
        });
      }

      const oauth = await tokenRequest(t.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: generateToken('dgr_'),
        client_id: client.client_id,
      });
      expect(oauth.status).toBe(503);
      expect(oauth.headers.get('retry-after')).toBe('5');
      expect(oauth.headers.get('cache-control')).toBe('no-store');
      expect(oauth.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('temporarily unavailable') });

      const { challenge } = pkcePair();
      const pageRes = await request(t.baseUrl).get(
        authorizePath({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: TEST_REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
        }),
      );
      expect(pageRes.status).toBe(503);
      expect(pageRes.headers['retry-after']).toBe('5');
      expect(pageRes.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(pageRes.text).toContain('Temporarily unavailable');
    } finally {
      restartPostgres(pg);
    }

    await readyAgain();
    await request(t.baseUrl).get(`/api/organizations/${organization.id}/projects`).set(session).expect(200);
    const mcp = await callTool(token);
    expect(mcp.status).toBe(200);
    expect(mcp.text).toContain('"result"');
  }, 60_000);

  it('under load, while the database is down, answers only 503 with Retry-After, then recovers', async () => {
    const { organization, admin } = await createOrganizationWithAdmin(t.app, t.dataSource);
    const { token } = await createProjectWithToken(t.dataSource);
    const session = `Bearer ${admin.session}`;
    const seen: { status: number; retryAfter: string | null; phase: 'up' | 'down' | 'back' }[] = [];
    const dropped: string[] = [];
    let phase: 'up' | 'down' | 'back' = 'up';
    let running = true;

    async function worker(n: number) {
      while (running) {
        const asked = phase;
        try {
          const res =
            n % 2 === 0
              ? await fetch(`${t.baseUrl}/api/mcp`, {
                  method: 'POST',
                  headers: {
                    Authorization: `Bearer ${token}`,
                    Accept: 'application/json, text/event-stream',
                    'Content-Type': 'application/json',
                    'MCP-Protocol-Version': '2025-06-18',
                  },
                  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_tasks', arguments: {} } }),
                })
              : await fetch(`${t.baseUrl}/api/organizations/${organization.id}/projects`, { headers: { Authorization: session } });
          await res.arrayBuffer();
          seen.push({ status: res.status, retryAfter: res.headers.get('retry-after'), phase: asked });
        } catch (error) {
          dropped.push(String(error));
        }
      }
    }

    const workers = Array.from({ length: 8 }, (_, n) => worker(n));
    await new Promise((r) => setTimeout(r, 500));
    haltPostgres(pg);
    phase = 'down';
    await new Promise((r) => setTimeout(r, 2_000));
    restartPostgres(pg);
    phase = 'back';
    const recovery = await readyAgain();
    await new Promise((r) => setTimeout(r, 500));
    running = false;
    await Promise.all(workers);

    expect(dropped).toEqual([]);
    const statuses = new Set(seen.map((s) => s.status));
    expect([...statuses].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(seen.filter((s) => s.status === 503 && s.retryAfter !== '5')).toEqual([]);
    expect(seen.filter((s) => s.phase === 'down' && s.status === 503).length).toBeGreaterThan(10);
    const last = seen.slice(-8);
    expect(last.every((s) => s.status === 200)).toBe(true);
    expect(recovery).toBeLessThan(5_000);
  }, 60_000);

  /** Stops the database right before the COMMIT of the first transaction whose statements match. */
  function crashBeforeCommitOf(match: RegExp): { fired: () => boolean } {
    let fired = false;
    setBeforeCommitHook((statements) => {
      if (fired || !statements.some((s) => match.test(s))) return;
      fired = true;
      haltPostgres(pg);
    });
    return { fired: () => fired };
  }

  it('a service key revocation interrupted before its commit leaves nothing applied; done again, all of it', async () => {
    const { organization, admin } = await createOrganizationWithAdmin(t.app, t.dataSource);
    const project = await createProject(t.dataSource, organization.id);
    const auth = { Authorization: `Bearer ${admin.session}` };
    const keys = `/api/organizations/${organization.id}/agent-service-keys`;
    const key = (await request(t.baseUrl).post(keys).set(auth).send({ name: 'sync' }).expect(201)).body as { id: string };
    const derived = (await request(t.baseUrl).post(`${keys}/${key.id}/tokens`).set(auth).send({ projectId: project.id }).expect(201))
      .body as { token: string };
    expect((await callTool(derived.token)).status).toBe(200);

    const crash = crashBeforeCommitOf(/UPDATE\s+"?agent_tokens"?/i);
    const interrupted = await request(t.baseUrl).post(`${keys}/${key.id}/revoke`).set(auth);
    restartPostgres(pg);
    expect(crash.fired()).toBe(true);
    expect(interrupted.status).toBe(503);
    expect(interrupted.headers['retry-after']).toBe('5');
    await readyAgain();

    // Nothing: the key is active, its token works, no revocation was audited.
    const listed = await request(t.baseUrl).get(keys).set(auth).expect(200);
    expect(JSON.stringify(listed.body)).toContain('"status":"active"');
    expect((await callTool(derived.token)).status).toBe(200);
    const audited = () =>
      t.dataSource.query(`SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1 AND action LIKE '%revoke%'`, [organization.id]);
    expect(await audited()).toEqual([{ n: 0 }]);

    // All: done again without a crash, the key, its token and the audit event together.
    setBeforeCommitHook(undefined);
    await request(t.baseUrl).post(`${keys}/${key.id}/revoke`).set(auth).expect((res) => expect(res.status).toBeLessThan(300));
    expect((await callTool(derived.token)).status).toBe(401);
    expect((await audited())[0].n).toBeGreaterThan(0);
  }, 60_000);

  it('a refresh-token rotation interrupted before its commit leaves the old token unspent; done again, all of it', async () => {
    const connected = await connectClient(t);
    const rows = async () =>
      t.dataSource.query(
        `SELECT count(*)::int AS tokens, count(*) FILTER (WHERE rotated_at IS NOT NULL)::int AS rotated
           FROM oauth_refresh_tokens WHERE grant_id = (SELECT grant_id FROM oauth_refresh_tokens WHERE token_hash = $1)`,
        [hashToken(connected.refreshToken)],
      );
    expect(await rows()).toEqual([{ tokens: 1, rotated: 0 }]);
    const crash = crashBeforeCommitOf(/UPDATE oauth_refresh_tokens SET rotated_at/i);
    const form = { grant_type: 'refresh_token', refresh_token: connected.refreshToken, client_id: connected.client.client_id };
    const interrupted = await tokenRequest(t.baseUrl, form);
    restartPostgres(pg);
    expect(crash.fired()).toBe(true);
    expect(interrupted.status).toBe(503);
    expect(interrupted.body.error).toBe('temporarily_unavailable');
    await readyAgain();
    setBeforeCommitHook(undefined);

    // Nothing was applied: the old token is not marked rotated and has no successor.
    expect(await rows()).toEqual([{ tokens: 1, rotated: 0 }]);
    // All of it, done again: the old one rotated, one successor that works, and rotates in turn.
    const rotated = await tokenRequest(t.baseUrl, form);
    expect(rotated.status).toBe(200);
    expect(await rows()).toEqual([{ tokens: 2, rotated: 1 }]);
    const next = rotated.body as { access_token: string; refresh_token: string };
    expect((await callTool(next.access_token)).status).toBe(200);
    const again = await tokenRequest(t.baseUrl, { ...form, refresh_token: next.refresh_token });
    expect(again.status).toBe(200);
  }, 60_000);
});
