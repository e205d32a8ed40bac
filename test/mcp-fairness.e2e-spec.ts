import { createProjectWithToken } from './factories';
import { startTestApp, type TestApp } from './helpers/test-app';

const FLOOD_CONNECTIONS = 16;
const BATCH = 100;

/**
 * One organisation's flood of tool calls does not starve another's (docs/operations.md,
 * "Request limits"): while one organisation keeps 16 batches of 100 `create_task` in flight
 * (well within its own request limits), another organisation's calls are all answered, none
 * refused (429) or timed out (503), in well under the time the flood takes to drain.
 */
describe('MCP fairness between organisations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      MCP_RATE_LIMIT_PER_TOKEN: '1000000',
      MCP_RATE_LIMIT_PER_ORGANIZATION: '1000000',
      DATABASE_STATEMENT_TIMEOUT_MS: '2000',
    });
  });
  afterAll(() => t.close());

  function post(token: string, body: unknown) {
    return fetch(`${t.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify(body),
    });
  }
  const createTask = (id: number, title: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_task', arguments: { title } } });

  it("answers another organisation's calls during one organisation's flood: no 429, no 503, no long wait", async () => {
    const flooder = await createProjectWithToken(t.dataSource);
    const other = await createProjectWithToken(t.dataSource);
    const batch = Array.from({ length: BATCH }, (_, i) => createTask(i + 1, `flood ${i}`));

    // One call first, so that what the process does once, at its first tool call (what it loads
    // and compiles on first use), is not inside the measurement: on a loaded machine the event
    // loop was then blocked for up to 5 s, and the other organisation's first call waited for
    // that, not for the flood.
    const warmUp = await post(flooder.token, createTask(0, 'warm-up'));
    expect(warmUp.status).toBe(200);
    await warmUp.text();

    let flooding = true;
    const floodStatuses: number[] = [];
    const flood = Promise.all(
      Array.from({ length: FLOOD_CONNECTIONS }, async () => {
        while (flooding) {
          const res = await post(flooder.token, batch);
          await res.text();
          floodStatuses.push(res.status);
        }
      }),
    );

    // The flood is under way (its first batches are being served) before the other organisation calls.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const answers: { status: number; ms: number; text: string }[] = [];
    const until = Date.now() + 3_000;
    for (let i = 0; Date.now() < until; i++) {
      const started = Date.now();
      const res = await post(other.token, createTask(i, `other ${i}`));
      answers.push({ status: res.status, text: await res.text(), ms: Date.now() - started });
    }
    flooding = false;
    await flood;

    expect(floodStatuses.length).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200).map((a) => a.status)).toEqual([]);
    expect(answers.filter((a) => !a.text.includes('"result"') || a.text.includes('"isError":true'))).toEqual([]);
    // Served in turn, not after the ~1,600 calls the flood keeps queued (without the turns, a call
    // waited about 10 s here). The first call may also wait for the flood's first batches to be
    // read and dispatched (CPU, not queueing).
    const times = answers.map((a) => a.ms).sort((x, y) => x - y);
    expect(times[Math.floor((times.length - 1) / 2)]).toBeLessThan(1_000);
    expect(times[times.length - 1]).toBeLessThan(5_000);
  }, 60_000);
});
