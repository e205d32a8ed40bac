import { randomBytes, randomUUID } from 'node:crypto';
import { MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY, invalidTokenChallenge } from './fixtures/mcp-401';
import { authorizePath, hiddenField, pkcePair, redirectParams, registerClient, TestBrowser, tokenRequest } from './factories/oauth';
import { GatewayProcess, startGatewayProcess } from './helpers/gateway-process';
import { connectClient, LEGACY_VERSIONS, MODERN_VERSION } from './helpers/mcp';
import { callTool, listToolsRaw } from './helpers/mcp-raw';
import { freePort } from './helpers/postgres-server';
import { ClonedDatabase, cloneTemplateDatabase } from './helpers/template-database';
import { readTestState, testDatabaseKind } from './helpers/test-state';

/**
 * SPEC §7: stateless processes. Two service processes share one PostgreSQL behind one public
 * URL; an OAuth flow begun on one finishes on the other, and a revocation made through one is
 * refused by the other at the very next request. Needs the real PostgreSQL run (two processes
 * cannot share the embedded database).
 */
const onPostgres = testDatabaseKind() === 'postgres';
(onPostgres ? describe : describe.skip)('two instances on one PostgreSQL', () => {
  let a: GatewayProcess;
  let b: GatewayProcess;
  let publicUrl: string;
  let database: ClonedDatabase | undefined;

  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    database = await cloneTemplateDatabase(postgres.port, 'scale');
    const [portA, portB] = [await freePort(), await freePort()];
    // Behind a load balancer both answer for one public URL: the issuer and resource are the same.
    publicUrl = `http://127.0.0.1:${portA}`;
    const shared = {
      BASE_URL: publicUrl,
      DATABASE_URL: database.url,
      SESSION_SECRET: randomBytes(32).toString('hex'),
    };
    [a, b] = await Promise.all([startGatewayProcess(portA, shared), startGatewayProcess(portB, shared)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  async function json(url: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
    const res = await fetch(`${url}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  async function signup(url: string) {
    const password = `pw-${randomUUID()}`;
    const res = await json(url, '/api/auth/signup', {
      method: 'POST',
      body: { email: `scale-${randomUUID().slice(0, 8)}@example.test`, password, name: 'Sam Scale', organizationName: 'Scale org' },
    });
    expect(res.status).toBe(201);
    return { ...res.body, password } as { user: { email: string }; organization: { id: string }; accessToken: string; password: string };
  }

  it('serves the same discovery documents from both instances', async () => {
    for (const url of [a.url, b.url]) {
      const prm = await json(url, '/.well-known/oauth-protected-resource/api/mcp');
      expect(prm.body.resource).toBe(`${publicUrl}/api/mcp`);
      expect(prm.body.authorization_servers).toEqual([publicUrl]);
    }
  });

  it('finishes on one instance an OAuth flow begun on the other, and the token works on both', async () => {
    const admin = await signup(a.url);
    const project = await json(b.url, `/api/organizations/${admin.organization.id}/projects`, {
      method: 'POST',
      token: admin.accessToken,
      body: { name: 'Shared project' },
    });
    expect(project.status).toBe(201);

    // Registration and login on A; the consent page opens on A and is submitted to B.
    const client = await registerClient(a.url);
    const browserA = new TestBrowser(a.url);
    expect((await browserA.login(admin.user.email, admin.password)).status).toBe(303);
    const { verifier, challenge } = pkcePair();
    const consentPage = await browserA.get(
      authorizePath({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: client.redirect_uris[0],
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'scale-state',
        resource: `${publicUrl}/api/mcp`,
      }),
    );
    expect(consentPage.status).toBe(200);
    const html = await consentPage.text();
    const browserB = new TestBrowser(b.url);
    for (const [k, v] of browserA.cookies) browserB.cookies.set(k, v);
    const approved = await browserB.post('/api/agent/oauth/authorize', {
      request_id: hiddenField(html, 'request_id'),
      csrf_token: hiddenField(html, 'csrf_token'),
      project_id: project.body.id,
      permissions: ['project:read', 'tasks:read'],
      decision: 'approve',
    });
    expect(approved.status).toBe(303);
    const params = redirectParams(approved);
    expect(params.get('state')).toBe('scale-state');
    expect(params.get('iss')).toBe(publicUrl);

    // The code issued by B is exchanged on A.
    const tokens = await tokenRequest(a.url, {
      grant_type: 'authorization_code',
      code: params.get('code')!,
      code_verifier: verifier,
      redirect_uri: client.redirect_uris[0],
      client_id: client.client_id,
      resource: `${publicUrl}/api/mcp`,
    });
    expect(tokens.status).toBe(200);
    const accessToken = tokens.body.access_token as string;

    for (const [url, version] of [
      [b.url, LEGACY_VERSIONS[2]],
      [a.url, MODERN_VERSION],
    ] as const) {
      const mcp = await connectClient(url, version, { authorization: `Bearer ${accessToken}` });
      const result = await mcp.client.callTool({ name: 'get_project', arguments: {} });
      expect(result.structuredContent).toMatchObject({ id: project.body.id, name: 'Shared project', permissions: ['project:read', 'tasks:read'] });
      await mcp.close();
    }

    // A refresh token issued through A rotates on B.
    const refreshed = await tokenRequest(b.url, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string, client_id: client.client_id });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.body.refresh_token);
  });

  it('refuses on B, at the next request, the tokens of a service key revoked through A', async () => {
    const admin = await signup(b.url);
    const orgPath = `/api/organizations/${admin.organization.id}`;
    const project = await json(a.url, `${orgPath}/projects`, { method: 'POST', token: admin.accessToken, body: { name: 'Machine project' } });
    const key = await json(a.url, `${orgPath}/agent-service-keys`, { method: 'POST', token: admin.accessToken, body: { name: 'deploy bot' } });
    const derived = await json(b.url, `${orgPath}/agent-service-keys/${key.body.id}/tokens`, {
      method: 'POST',
      token: admin.accessToken,
      body: { projectId: project.body.id },
    });
    expect(derived.status).toBe(201);
    const token = derived.body.token as string;

    const listTools = () => listToolsRaw(b.url, token, 'x-agent-token');
    const before = await listTools();
    expect(before.status).toBe(200);
    await before.text();

    const revoked = await json(a.url, `${orgPath}/agent-service-keys/${key.body.id}/revoke`, { method: 'POST', token: admin.accessToken });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedTokens).toBe(1);

    const after = await listTools();
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toBe(invalidTokenChallenge(publicUrl));
    expect(await after.json()).toEqual(MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY);
  });

  it('refuses a rotated-out secret on both instances the moment its overlap ends, and keeps the new one', async () => {
    const admin = await signup(a.url);
    const orgPath = `/api/organizations/${admin.organization.id}`;
    const project = await json(a.url, `${orgPath}/projects`, { method: 'POST', token: admin.accessToken, body: { name: 'Rotating' } });
    const key = await json(a.url, `${orgPath}/agent-service-keys`, { method: 'POST', token: admin.accessToken, body: { name: 'rotating bot' } });
    const derived = await json(b.url, `${orgPath}/agent-service-keys/${key.body.id}/tokens`, {
      method: 'POST',
      token: admin.accessToken,
      body: { projectId: project.body.id },
    });
    expect(derived.status).toBe(201);

    const listTools = async (url: string, token: string) => {
      const res = await listToolsRaw(url, token, 'x-agent-token');
      await res.text();
      return res.status;
    };

    const rotated = await json(a.url, `${orgPath}/agent-service-keys/${key.body.id}/tokens/${derived.body.id}/rotate`, {
      method: 'POST',
      token: admin.accessToken,
      body: { overlapSeconds: 2 },
    });
    expect(rotated.status).toBe(201);
    const until = Date.parse(rotated.body.rotatingOutUntil as string);
    const [oldToken, newToken] = [derived.body.token as string, rotated.body.token as string];

    // During the overlap both secrets work on both instances.
    for (const url of [a.url, b.url]) {
      expect(await listTools(url, oldToken)).toBe(200);
      expect(await listTools(url, newToken)).toBe(200);
    }
    // Polled every 50 ms: accepted on both until the overlap ends, refused on both from then on.
    for (;;) {
      const [onA, onB] = await Promise.all([listTools(a.url, oldToken), listTools(b.url, oldToken)]);
      const now = Date.now();
      if (onA === 401 && onB === 401) {
        expect(now).toBeGreaterThanOrEqual(until - 20);
        break;
      }
      if (now < until - 100) expect([onA, onB]).toEqual([200, 200]);
      if (now > until + 1000) throw new Error(`the old secret was still accepted after the overlap (A ${onA}, B ${onB})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const url of [a.url, b.url]) {
      expect(await listTools(url, oldToken)).toBe(401);
      expect(await listTools(url, newToken)).toBe(200);
    }
  });

  it('refuses on B every token revoked through A just before: 50 times in a row, no pause, both generations', async () => {
    const admin = await signup(a.url);
    const orgPath = `/api/organizations/${admin.organization.id}`;
    const project = await json(a.url, `${orgPath}/projects`, { method: 'POST', token: admin.accessToken, body: { name: 'Revoked often' } });
    for (let round = 0; round < 50; round++) {
      const generation = round % 2 ? 'legacy' : 'modern';
      const key = await json(a.url, `${orgPath}/agent-service-keys`, { method: 'POST', token: admin.accessToken, body: { name: `key ${round}` } });
      const derived = await json(a.url, `${orgPath}/agent-service-keys/${key.body.id}/tokens`, {
        method: 'POST',
        token: admin.accessToken,
        body: { projectId: project.body.id },
      });
      const token = derived.body.token as string;
      const before = await callTool(b.url, token, generation, 'get_project', {});
      expect(before.status).toBe(200);
      expect(before.body.result?.structuredContent).toMatchObject({ id: project.body.id });

      const revoked = await json(a.url, `${orgPath}/agent-service-keys/${key.body.id}/revoke`, { method: 'POST', token: admin.accessToken });
      expect(revoked.status).toBe(200);
      const after = await callTool(b.url, token, generation, 'get_project', {});
      expect(after.status).toBe(401);
      expect(after.body).toEqual(MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY);
    }
  }, 180_000);
});
