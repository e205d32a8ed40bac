import request from 'supertest';
import { Client } from 'pg';
import { generateToken } from '@app/credential-store';
import { READ_PIPELINE_CONNECTIONS, READ_PIPELINE_NO_ANSWER_MARGIN_MS, READ_PIPELINE_STALL_MS, readStatement, statement } from '@app/database';
import { createProjectWithToken } from './factories';
import { registerClient, tokenRequest } from './factories/oauth';
import { startTestApp, type TestApp } from './helpers/test-app';
import { testDatabaseKind } from './helpers/test-state';

const onPostgres = testDatabaseKind() === 'postgres';
// Long enough for the requests the test makes meanwhile to be answered before the stuck one ends,
// on a machine busy with other work.
const TIMEOUT_MS = 10_000;
const MAX_QUEUED = 4;
const BACKEND = statement('test.timeout.backend', 'SELECT pg_backend_pid() AS pid, $1::int AS n');
const LATE = statement('test.timeout.late', 'SELECT $1::int AS n FROM pg_sleep(0.2)');

/**
 * The read pipeline's bounds (docs/operations.md, "Database outages"): one of the request path's
 * statements held up by a lock ends as "unavailable" (503) at the statement timeout, while the
 * other requests keep being answered, on the pipeline's other connection or, beyond its cap, on
 * the pool. PostgreSQL only: the embedded database has no pipeline (and one session).
 */
(onPostgres ? describe : describe.skip)('the read pipeline held up by a lock', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS), DATABASE_PIPELINE_MAX_QUEUED: String(MAX_QUEUED) });
  });
  afterAll(async () => t?.close());

  function listTools(token: string, id: string) {
    return request(t.baseUrl)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', '2025-06-18')
      .send({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
  }

  /** The server processes that `readStatement` ran on, one statement at a time (so each on the pipeline, in turn). */
  async function pipelineBackends(): Promise<Set<number>> {
    const pids = new Set<number>();
    for (let i = 0; i < 2 * READ_PIPELINE_CONNECTIONS; i++) {
      const [row] = await readStatement<{ pid: number }>(t.dataSource, BACKEND, [i]);
      pids.add(row!.pid);
    }
    return pids;
  }

  it('ends the stuck lookup with a 503 at the timeout, answers the other requests meanwhile, and keeps the connection', async () => {
    const { token } = await createProjectWithToken(t.dataSource);
    const client = await registerClient(t.baseUrl);
    await listTools(token, 'warm').expect(200);
    const pipeline = await pipelineBackends();
    expect(pipeline.size).toBe(READ_PIPELINE_CONNECTIONS);

    // Every token lookup waits while another session holds the table.
    const locker = new Client({ connectionString: t.config.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE agent_tokens IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      let ended = false;
      const stuck = listTools(token, 'stuck-1').then((res) => {
        ended = true;
        return res;
      });

      // The lookup waits for the lock, on a connection of the pipeline (in its bind, before
      // pg_stat_activity shows its text: so found by the connection).
      let stuckPid: number | undefined;
      for (let waited = 0; stuckPid === undefined; waited += 20) {
        if (waited > 10_000) throw new Error('the token lookup never waited for the lock');
        const { rows } = await locker.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid = ANY($1)`,
          [[...pipeline]],
        );
        stuckPid = rows[0]?.pid;
        if (stuckPid === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Past the stall time, new statements go around that connection.
      await new Promise((resolve) => setTimeout(resolve, READ_PIPELINE_STALL_MS));

      // Meanwhile: requests that do not need the locked table are answered, pipelined ones included
      // (the token endpoint reads the client on the pipeline).
      for (let i = 0; i < 3; i++) {
        await request(t.baseUrl).get('/health/ready').expect(200);
        const refused = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: generateToken('dgr_'), client_id: client.client_id });
        expect(refused.status).toBe(400);
        expect(refused.body).toEqual(expect.objectContaining({ error: 'invalid_grant' }));
      }
      // A burst of statements: on the other connection up to its cap, the rest on the pool; none
      // behind the stuck one.
      const burst = await Promise.all(Array.from({ length: 30 }, (_, n) => readStatement<{ pid: number; n: number }>(t.dataSource, BACKEND, [n])));
      expect(burst.map(([row]) => row!.n)).toEqual(Array.from({ length: 30 }, (_, n) => n));
      const pids = new Set(burst.map(([row]) => row!.pid));
      expect(pids.has(stuckPid)).toBe(false);
      expect([...pids].some((pid) => pipeline.has(pid))).toBe(true);
      expect([...pids].some((pid) => !pipeline.has(pid))).toBe(true);
      expect(ended).toBe(false);

      // The stuck request ends with the endpoint's 503 once the timeout has passed, the lock still held.
      const res = await stuck;
      const took = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 'stuck-1',
        error: { code: -32000, message: expect.stringContaining('temporarily unavailable'), data: { code: 'database_unavailable' } },
      });
      expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS);
      expect(took).toBeLessThan(TIMEOUT_MS + 15_000);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }

    // The lock gone, the same two connections serve again: the cancelled statement left them usable.
    await listTools(token, 'after-1').expect(200);
    await listTools(token, 'after-2').expect(200);
    expect(await pipelineBackends()).toEqual(pipeline);
  });
});

/**
 * The read pipeline's watchdog counts the connection's silence, not the process's own: an answer
 * that came while the process was busy (synchronous work past the bound, as under a burst of
 * requests on a starved CPU) is handed over, and the connection kept.
 */
(onPostgres ? describe : describe.skip)('the read pipeline while the process is busy', () => {
  const BOUND_MS = 500;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: String(BOUND_MS) });
  });
  afterAll(async () => t?.close());

  it('hands over an answer that came while the process itself was busy past the bound, and keeps the connection', async () => {
    const backends = async () => {
      const pids = new Set<number>();
      for (let i = 0; i < 2 * READ_PIPELINE_CONNECTIONS; i++) pids.add((await readStatement<{ pid: number }>(t.dataSource, BACKEND, [i]))[0]!.pid);
      return pids;
    };
    const pipeline = await backends();
    expect(pipeline.size).toBe(READ_PIPELINE_CONNECTIONS);
    const late = readStatement<{ n: number }>(t.dataSource, LATE, [7]);
    // The statement leaves at the end of this turn of the event loop (two turns on, it has left);
    // its answer comes 200 ms later, while the process is busy past the bound and its margin: the
    // answer waits in the socket until the busy stretch ends. The database answered in time.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const busyUntil = Date.now() + BOUND_MS + READ_PIPELINE_NO_ANSWER_MARGIN_MS + 500;
    while (Date.now() < busyUntil);
    expect(await late).toEqual([{ n: 7 }]);
    expect(await backends()).toEqual(pipeline);
  });
});
