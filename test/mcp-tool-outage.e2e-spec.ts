import { Client } from 'pg';
import { createProjectWithToken } from './factories';
import { callTool, type Generation } from './helpers/mcp-raw';
import { startTestApp, type TestApp } from './helpers/test-app';
import { testDatabaseKind } from './helpers/test-state';

const onPostgres = testDatabaseKind() === 'postgres';
const TIMEOUT_MS = 1_000;
/** A task id no project has: answered "not found" when the database answers. */
const TASK = '00000000-0000-4000-8000-000000000000';

/**
 * A database failure inside a tool call is an outage answer like every other (docs/operations.md,
 * "Database outages"): HTTP 503 with `Retry-After` and a JSON-RPC error, never a JSON-RPC error on
 * HTTP 200. The tool's own statement is held up by a lock until the statement timeout ends it as
 * "unavailable" (the token lookup before it is untouched). PostgreSQL only: the embedded database
 * has one session, so a lock held elsewhere would hold up everything.
 */
(onPostgres ? describe : describe.skip)('a database failure inside a tool call', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) });
  });
  afterAll(async () => t?.close());

  it.each([
    ['2025 generation, one request', 'legacy', false],
    ['2026-07-28, one request', 'modern', false],
    ['2025 generation, a batch (the SDK generic path)', 'legacy', true],
  ] as [string, Generation, boolean][])('answers 503 with Retry-After and a JSON-RPC error: %s', async (_name, generation, batch) => {
    const { token } = await createProjectWithToken(t.dataSource);
    expect((await callTool(t.baseUrl, token, generation, 'get_task', { id: TASK })).status).toBe(200);

    const locker = new Client({ connectionString: t.config.databaseUrl });
    await locker.connect();
    let answer: Awaited<ReturnType<typeof rawCall>>;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE');
      answer = await rawCall(token, generation, batch);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    expect(answer.status).toBe(503);
    expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: batch ? null : 41,
      error: { code: -32000, message: expect.stringContaining('temporarily unavailable'), data: { code: 'database_unavailable' } },
    });

    // The lock gone, the same call is answered again.
    const again = await callTool(t.baseUrl, token, generation, 'get_task', { id: TASK }, { batch });
    expect(again.status).toBe(200);
    expect(again.body.result?.isError).toBe(true);
  });

  async function rawCall(token: string, generation: Generation, batch: boolean) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    };
    let params: Record<string, unknown> = { name: 'get_task', arguments: { id: TASK } };
    if (generation === 'modern') {
      Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_task' });
      params = {
        ...params,
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
      };
    } else {
      headers['mcp-protocol-version'] = '2025-03-26';
    }
    const message = { jsonrpc: '2.0', id: 41, method: 'tools/call', params };
    const res = await fetch(`${t.baseUrl}/api/mcp`, { method: 'POST', headers, body: JSON.stringify(batch ? [message] : message), signal: AbortSignal.timeout(15_000) });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), contentType: res.headers.get('content-type'), body: JSON.parse(await res.text()) as unknown };
  }
});
