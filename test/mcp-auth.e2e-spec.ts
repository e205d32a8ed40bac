import { ApiKeyResolver } from '@app/credentials';
import { SessionTokenService } from '@app/people';
import { generateToken } from '@app/credential-store';
import request from 'supertest';
import { createProjectWithToken, createUser } from './factories';
import { createApiKey } from './factories/mcp';
import { invalidTokenChallenge, MCP_401_BODY, MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY, missingTokenChallenge } from './fixtures/mcp-401';
import { startTestApp, TestApp } from './helpers/test-app';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1.0.0' } },
};

/** Flips the last checksum character, keeping the token's form. */
function breakChecksum(token: string): string {
  const last = token.at(-1)!;
  return token.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

describe('MCP endpoint credentials: the exact 401 of the seed (SPEC §2, §3)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  function post(headers: Record<string, string>) {
    const req = request(t.baseUrl).post('/api/mcp').set('Accept', 'application/json, text/event-stream');
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send(INITIALIZE);
  }

  async function expectInvalidToken(headers: Record<string, string>, body: typeof MCP_401_BODY = MCP_401_BODY) {
    const res = await post(headers);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(invalidTokenChallenge(t.baseUrl));
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(body))));
    expect(res.body).toEqual(body);
  }

  /** A `dga_` token that is not live: the same answer, with the sentence saying the token was not recognised. */
  const expectUnrecognisedAgentToken = (headers: Record<string, string>) => expectInvalidToken(headers, MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY);

  it('no credential: 401 with the challenge but without an error parameter', async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(missingTokenChallenge(t.baseUrl));
    expect(res.body).toEqual(MCP_401_BODY);
  });

  it('garbage', () => expectInvalidToken({ Authorization: 'Bearer garbage' }));

  it('garbage in x-agent-token', () => expectInvalidToken({ 'x-agent-token': 'garbage' }));

  it('a non-Bearer Authorization scheme', () => expectInvalidToken({ Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }));

  it('a dga_ token whose checksum fails', async () => {
    const { token } = await createProjectWithToken(t.dataSource);
    await expectUnrecognisedAgentToken({ Authorization: `Bearer ${breakChecksum(token)}` });
  });

  it('a well-formed dga_ token that was never issued', () => expectUnrecognisedAgentToken({ Authorization: `Bearer ${generateToken('dga_')}` }));

  it('an expired dga_ token', async () => {
    const { token } = await createProjectWithToken(t.dataSource, { expiresAt: new Date(Date.now() - 1000) });
    await expectUnrecognisedAgentToken({ Authorization: `Bearer ${token}` });
  });

  it('a revoked dga_ token, in either header', async () => {
    const { token } = await createProjectWithToken(t.dataSource, { revokedAt: new Date() });
    await expectUnrecognisedAgentToken({ Authorization: `Bearer ${token}` });
    await expectUnrecognisedAgentToken({ 'x-agent-token': token });
  });

  it('a valid rk_ API key (it authenticates REST, never capabilities)', async () => {
    const { organization } = await createProjectWithToken(t.dataSource);
    const { key } = await createApiKey(t.dataSource, organization.id);
    expect(await t.app.get(ApiKeyResolver).resolve(key)).toMatchObject({ kind: 'api_key', organizationId: organization.id });
    await expectInvalidToken({ Authorization: `Bearer ${key}` });
  });

  it('a valid session JWT of a real user (it authenticates REST, never capabilities)', async () => {
    const user = await createUser(t.dataSource);
    const { accessToken } = await t.app.get(SessionTokenService).issue(user.id);
    expect(await t.app.get(SessionTokenService).resolve(accessToken)).toEqual({
      kind: 'session',
      userId: user.id,
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      expiresAt: expect.any(Date),
      email: user.email,
      ssoIssuer: null,
    });
    await expectInvalidToken({ Authorization: `Bearer ${accessToken}` });
  });

  it('two different credentials, one in Authorization and one in x-agent-token (even both live)', async () => {
    const a = await createProjectWithToken(t.dataSource);
    const b = await createProjectWithToken(t.dataSource);
    await expectInvalidToken({ Authorization: `Bearer ${a.token}`, 'x-agent-token': b.token });
  });

  it('says that the agent token was not recognised only for a dga_ token, never for another credential', async () => {
    const unknown = await post({ Authorization: `Bearer ${generateToken('dga_')}` });
    expect(unknown.body.message).toBe(`${MCP_401_BODY.message} This agent token was not recognised (revoked, expired or mistyped).`);
    const other = await post({ Authorization: `Bearer ${generateToken('rk_')}` });
    expect(other.body.message).toBe(MCP_401_BODY.message);
    expect(other.headers['www-authenticate']).toBe(unknown.headers['www-authenticate']);
  });

  it.each([
    ['Authorization: Bearer', (token: string) => ({ Authorization: `Bearer ${token}` })],
    ['x-agent-token', (token: string) => ({ 'x-agent-token': token })],
    ['both headers, same token', (token: string) => ({ Authorization: `Bearer ${token}`, 'x-agent-token': token })],
  ])('accepts a live agent token in %s', async (_form, headersFor) => {
    const { token } = await createProjectWithToken(t.dataSource);
    const res = await post(headersFor(token));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.text).toContain('"protocolVersion":"2025-06-18"');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });
});
