import { auth, Client, extractWWWAuthenticateParams, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { hashToken } from '@app/credential-store';
import { invalidTokenChallenge } from './fixtures/mcp-401';
import { TestOAuthProvider } from './helpers/oauth-provider';
import { startTestApp, TestApp } from './helpers/test-app';
import { connectClient, createPersonWithProject, openConsent, redirectParams, TestBrowser, tokenRequest } from './factories/oauth';

const REDIRECT_URI = 'http://127.0.0.1:33418/callback';

/**
 * The redirect step done the way the person does it in the browser: sign in, pick the project,
 * approve. It records the authorization response the browser would deliver to the redirect URI.
 */
function scriptedConsent(browser: TestBrowser, person: { email: string; password: string }, projectId: string, permissions: string[]) {
  const step: { callback?: URLSearchParams; authorize(url: URL): Promise<void> } = {
    async authorize(url: URL): Promise<void> {
      const path = `${url.pathname}${url.search}`;
      const toLogin = await browser.get(path);
      if (toLogin.status !== 302) throw new Error(`expected the login redirect, got ${toLogin.status}`);
      const signedIn = await browser.login(person.email, person.password, path);
      if (signedIn.headers.get('location') !== path) throw new Error('login did not lead back to authorize');
      const consent = await openConsent(browser, path);
      const decision = await browser.post('/api/agent/oauth/authorize', {
        request_id: consent.requestId,
        csrf_token: consent.csrfToken,
        project_id: projectId,
        permissions,
        decision: 'approve',
      });
      step.callback = redirectParams(decision);
    },
  };
  return step;
}

describe('the official MCP client runs the whole OAuth flow (SDK auth() + OAuthClientProvider)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No grace window: the rotated refresh token is refused at once.
    t = await startTestApp({ REFRESH_REUSE_GRACE_SECONDS: '0' });
  });
  afterAll(() => t.close());

  it('from the first 401 to tools/call, then refresh, then the old refresh token is refused', async () => {
    const person = await createPersonWithProject(t);
    const serverUrl = new URL(`${t.baseUrl}/api/mcp`);

    // 1. The first request, with no credential: 401 and where to discover the server.
    const first = await fetch(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(first.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(first);
    expect(resourceMetadataUrl?.href).toBe(`${t.baseUrl}/.well-known/oauth-protected-resource/api/mcp`);

    // 2. Discovery, registration, and the person's login + consent in the redirect step.
    const consent = scriptedConsent(new TestBrowser(t.baseUrl), person.user, person.project.id, ['project:read', 'tasks:read', 'tasks:write']);
    const provider = new TestOAuthProvider({ redirectUri: REDIRECT_URI, clientName: 'SDK e2e host', state: 'sdk-state', authorize: (url) => consent.authorize(url) });
    expect(await auth(provider, { serverUrl, resourceMetadataUrl })).toBe('REDIRECT');
    const asked = provider.authorizationUrl!;
    expect(`${asked.origin}${asked.pathname}`).toBe(`${t.baseUrl}/api/agent/oauth/authorize`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(`${t.baseUrl}/api/mcp`);
    expect(consent.callback!.get('state')).toBe('sdk-state');

    // 3. The callback: the SDK checks iss and exchanges the code.
    const code = consent.callback!.get('code')!;
    expect(await auth(provider, { serverUrl, authorizationCode: code, iss: consent.callback!.get('iss')! })).toBe('AUTHORIZED');
    const firstTokens = provider.tokens()!;
    expect(firstTokens.access_token).toMatch(/^dga_/);
    expect(firstTokens.refresh_token).toMatch(/^dgr_/);
    expect(firstTokens.scope).toBe('project:read tasks:read tasks:write');

    // 4. The MCP client with the provider: tools/call on the chosen project.
    const mcp = new Client({ name: 'sdk-oauth-e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const project = await mcp.callTool({ name: 'get_project', arguments: {} });
    expect(project.isError).toBeFalsy();
    expect(project.structuredContent).toEqual({
      id: person.project.id,
      name: person.project.name,
      organization: { id: person.organization.id, name: person.organization.name },
      permissions: ['project:read', 'tasks:read', 'tasks:write'],
    });
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['create_task', 'get_project', 'get_task', 'list_tasks', 'update_task']);
    await mcp.close();

    // 5. Refresh through the SDK: a new pair.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    const refreshed = provider.tokens()!;
    expect(refreshed.refresh_token).toMatch(/^dgr_/);
    expect(refreshed.refresh_token).not.toBe(firstTokens.refresh_token);
    expect(refreshed.access_token).not.toBe(firstTokens.access_token);
    const again = new Client({ name: 'sdk-oauth-e2e', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    expect((await again.callTool({ name: 'get_project', arguments: {} })).isError).toBeFalsy();
    await again.close();

    // 6. The old refresh token is refused (and its reuse ends the grant).
    const reuse = await tokenRequest(t.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: firstTokens.refresh_token!,
      client_id: provider.clientInformation()!.client_id,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token was already used; the grant has been revoked' });
    const after = await fetch(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${refreshed.access_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toBe(invalidTokenChallenge(t.baseUrl));
    const [row] = await t.dataSource.query('SELECT revoked_at IS NOT NULL AS revoked FROM agent_tokens WHERE token_hash = $1', [hashToken(refreshed.access_token)]);
    expect(row).toEqual({ revoked: true });
  });
});

describe('an expired OAuth access token at /api/mcp', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ACCESS_TOKEN_TTL_SECONDS: '1' });
  });
  afterAll(() => t.close());

  it('gets the MCP 401 with invalid_token, sending the client back to discovery', async () => {
    const c = await connectClient(t);
    const call = () =>
      fetch(`${t.baseUrl}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${c.accessToken}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
    const [row] = await t.dataSource.query(
      'SELECT round(extract(epoch FROM expires_at - created_at)) AS ttl FROM agent_tokens WHERE token_hash = $1',
      [hashToken(c.accessToken)],
    );
    expect(row).toEqual({ ttl: '1' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const expired = await call();
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toBe(invalidTokenChallenge(t.baseUrl));
    const body = (await expired.json()) as Record<string, unknown>;
    expect(body).toEqual({ message: expect.stringContaining('dga_'), error: 'Unauthorized', statusCode: 401 });
  });
});
