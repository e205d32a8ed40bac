import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { GatewayProcess, startGatewayProcess } from './helpers/gateway-process';
import { freePort } from './helpers/postgres-server';

interface LogLine {
  level: string;
  context?: string;
  message: Record<string, unknown>;
}

/**
 * The request log of the real process (LOG_LEVEL=info, JSON lines on standard output): one line
 * per request with its route template, status, duration, credential and request id; the request
 * id echoed in `X-Request-Id`; no token, query secret or password anywhere in the output.
 */
describe('request log', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'ag-reqlog-'));
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await startGatewayProcess(await freePort(), { DATA_DIR: join(cwd, 'data'), LOG_LEVEL: 'info' });
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  const requestLines = (): LogLine[] =>
    gateway
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine)
      .filter((l) => l.context === 'Request');

  async function waitForLine(requestId: string): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const found = requestLines().filter((l) => l.message.requestId === requestId);
      if (found.length) {
        expect(found).toHaveLength(1);
        return found[0].message;
      }
      if (Date.now() > deadline) throw new Error(`no log line for request ${requestId}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('echoes a valid X-Request-Id, replaces an invalid one, makes one when absent', async () => {
    const given = `trace-${randomBytes(6).toString('hex')}`;
    const echoed = await fetch(`${gateway.url}/health/live`, { headers: { 'x-request-id': given } });
    expect(echoed.headers.get('x-request-id')).toBe(given);
    for (const bad of ['has spaces in it', 'x'.repeat(129), '<script>']) {
      const res = await fetch(`${gateway.url}/health/live`, { headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const made = await fetch(`${gateway.url}/health/live`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await waitForLine(given)).toEqual({
      msg: 'request',
      requestId: given,
      method: 'GET',
      route: '/health/live',
      status: 200,
      durationMs: expect.any(Number),
      credentialKind: null,
      credentialId: null,
      projectId: null,
    });
  });

  it('one line per request with route template, status, credential; never a secret', async () => {
    const password = `secret-password-${randomBytes(8).toString('hex')}`;
    const signup = await fetch(`${gateway.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `log-${randomUUID().slice(0, 8)}@example.test`, password, name: 'Lou Log', organizationName: 'Log Ltd' }),
    });
    expect(signup.status).toBe(201);
    const { accessToken, user, organization } = (await signup.json()) as { accessToken: string; user: { id: string }; organization: { id: string } };

    const listed = await fetch(`${gateway.url}/api/organizations/${organization.id}/projects`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(listed.status).toBe(200);
    const listLine = await waitForLine(listed.headers.get('x-request-id')!);
    expect(listLine).toMatchObject({
      method: 'GET',
      route: '/api/organizations/:orgId/projects',
      status: 200,
      credentialKind: 'session',
      credentialId: user.id,
    });

    const fakeKey = `rk_${randomBytes(20).toString('hex')}`;
    const refused = await fetch(`${gateway.url}/api/organizations/${organization.id}/projects`, { headers: { authorization: `Bearer ${fakeKey}` } });
    expect(refused.status).toBe(401);
    expect(await waitForLine(refused.headers.get('x-request-id')!)).toMatchObject({ status: 401, credentialKind: null });

    const querySecret = randomBytes(16).toString('hex');
    const unmatched = await fetch(`${gateway.url}/no/such/${querySecret}?access_token=${querySecret}&password=${password}`);
    expect(unmatched.status).toBe(404);
    expect(await waitForLine(unmatched.headers.get('x-request-id')!)).toMatchObject({ route: 'unmatched', status: 404 });

    const output = gateway.stdout();
    for (const secret of [password, accessToken, fakeKey, querySecret]) expect(output).not.toContain(secret);
  });

  it('logs a request whose client went away in the middle of its body', async () => {
    const requestId = `gone-${randomBytes(6).toString('hex')}`;
    const { port } = new URL(gateway.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        // Headers and a first byte of a body that never comes: the answer waits for the body.
        socket.write(
          `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nX-Request-Id: ${requestId}\r\n\r\n{`,
          () => setTimeout(() => (socket.destroy(), resolve()), 200),
        );
      });
      socket.on('error', reject);
    });
    // The body parser refused the cut body (400), answering into the closed connection.
    expect(await waitForLine(requestId)).toMatchObject({ method: 'POST', route: 'unmatched', status: 400 });
  });

  it('loses no line when the process stops right after a burst of requests', async () => {
    const burst = `burst-${randomBytes(4).toString('hex')}`;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => fetch(`${gateway.url}/health/live`, { headers: { 'x-request-id': `${burst}-${i}` } })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await gateway.stop();
    const ids = new Set(requestLines().map((l) => l.message.requestId));
    expect(Array.from({ length: 200 }, (_, i) => `${burst}-${i}`).filter((id) => !ids.has(id))).toEqual([]);
  });
});
