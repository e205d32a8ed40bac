import { randomUUID } from 'node:crypto';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallbackServer } from './helpers/callback-server';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { TestOAuthProvider } from './helpers/oauth-provider';
import { ConsentShown, consentInChromium, gatewayJson, SdkGateway, startCimdSetup } from './helpers/sdk-gateway';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * The official MCP SDK v1 client (`@modelcontextprotocol/sdk`), used the way its hosts use it:
 * `connect` meets the 401, the SDK discovers the server and sends the person to the
 * authorization URL (here Chromium: sign in, pick the project, approve), `finishAuth` exchanges
 * the code, a new connection calls tools. When the access token is then refused, the transport
 * refreshes on its own and the call goes through. Once with a Client ID Metadata Document
 * (`clientMetadataUrl`: served over https on `localhost`, see `startSdkGateway`), once with
 * dynamic registration.
 */
describeBrowser('the MCP SDK v1 client, consent in Chromium', () => {
  let sdk: SdkGateway;
  let callback: CallbackServer;
  let browser: Chromium;
  let documentUrl: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ callback, sdk, clientId: documentUrl, browser, close } = await startCimdSetup('/v1-client.json', 'SDK v1 Metadata Client'));
  }, 120_000);
  afterAll(() => close?.());

  const json = (path: string, init?: { method?: string; token?: string; body?: unknown }) => gatewayJson(sdk.gateway.url, path, init);

  async function personWithProject(projectName: string) {
    const email = `v1-${randomUUID().slice(0, 8)}@example.test`;
    const password = `pw-${randomUUID()}`;
    const signup = await json('/api/auth/signup', { method: 'POST', body: { email, password, name: 'Vic', organizationName: 'V1 Org' } });
    expect(signup.status).toBe(201);
    const orgId = signup.body.organization.id as string;
    const project = await json(`/api/organizations/${orgId}/projects`, { method: 'POST', token: signup.body.accessToken, body: { name: projectName } });
    expect(project.status).toBe(201);
    return { email, password, orgId, projectId: project.body.id as string, sessionToken: signup.body.accessToken as string };
  }

  /**
   * The whole flow with one provider: connect → 401 → consent in Chromium → finishAuth →
   * tools/call; then the access token is revoked (RFC 7009) and the next call refreshes.
   */
  async function connectEndToEnd(provider: TestOAuthProvider, person: Awaited<ReturnType<typeof personWithProject>>, projectName: string) {
    const serverUrl = new URL(`${sdk.gateway.url}/api/mcp`);

    // The first connection meets the 401; the SDK discovers, identifies the client, and redirects.
    const first = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    await expect(new Client({ name: 'v1-sdk-e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const asked = provider.authorizationUrl!;
    expect(`${asked.origin}${asked.pathname}`).toBe(`${sdk.gateway.url}/api/agent/oauth/authorize`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(serverUrl.href);
    const back = callback.received[callback.received.length - 1];
    expect(back.searchParams.get('state')).toBe(provider.state());
    expect(back.searchParams.get('iss')).toBe(sdk.gateway.url);

    // The callback: the transport exchanges the code.
    await first.finishAuth(back.searchParams.get('code')!);
    await first.close();
    const issued = provider.tokens()!;
    expect(issued.access_token).toMatch(/^dga_/);
    expect(issued.refresh_token).toMatch(/^dgr_/);

    const mcp = new Client({ name: 'v1-sdk-e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const result = await mcp.callTool({ name: 'get_project', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: person.projectId, name: projectName, organization: { id: person.orgId, name: 'V1 Org' } });

    // The access token is revoked: the gateway refuses it, the transport refreshes and calls again.
    const clientId = provider.clientInformation()!.client_id;
    const revoke = await fetch(`${sdk.gateway.url}/api/agent/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.access_token, client_id: clientId }).toString(),
    });
    expect(revoke.status).toBe(200);
    const refused = await fetch(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${issued.access_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(refused.status).toBe(401);
    const again = await mcp.callTool({ name: 'get_project', arguments: {} });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toMatchObject({ id: person.projectId });
    const refreshed = provider.tokens()!;
    expect(refreshed.access_token).toMatch(/^dga_/);
    expect(refreshed.access_token).not.toBe(issued.access_token);
    expect(refreshed.refresh_token).toMatch(/^dgr_/);
    expect(refreshed.refresh_token).not.toBe(issued.refresh_token);
    await mcp.close();

    const grants = await json('/api/me/agent-grants', { token: person.sessionToken });
    return { clientId, grants: grants.body };
  }

  it('with clientMetadataUrl: no registration, consent in Chromium, tools/call, refresh on a refused token', async () => {
    const person = await personWithProject('V1 metadata project');
    const shown: ConsentShown = {};
    const provider = new TestOAuthProvider({
      clientMetadataUrl: documentUrl,
      redirectUri: callback.redirectUri,
      clientName: 'SDK v1 Metadata Client',
      state: 'v1-cimd-state',
      authorize: consentInChromium(browser.context, callback, person, { clientName: 'SDK v1 Metadata Client', projectName: 'V1 metadata project' }, shown),
    });

    const { clientId, grants } = await connectEndToEnd(provider, person, 'V1 metadata project');
    expect(clientId).toBe(documentUrl);
    expect(provider.authorizationUrl!.searchParams.get('client_id')).toBe(documentUrl);
    expect(shown).toEqual({ host: `localhost:${sdk.documents.port}`, newClient: true });
    expect(grants).toEqual([expect.objectContaining({ client: { id: documentUrl, name: 'SDK v1 Metadata Client' } })]);
    // Fetched once at authorize; the token exchange, the revocation and the refresh used the cache.
    expect(sdk.documents.hitsOf('/v1-client.json')).toBe(1);
  });

  it('with dynamic registration: registers, consent in Chromium, tools/call, refresh on a refused token', async () => {
    const person = await personWithProject('V1 registered project');
    const shown: ConsentShown = {};
    const provider = new TestOAuthProvider({
      redirectUri: callback.redirectUri,
      clientName: 'SDK v1 Registered Client',
      state: 'v1-dcr-state',
      authorize: consentInChromium(browser.context, callback, person, { clientName: 'SDK v1 Registered Client', projectName: 'V1 registered project' }, shown),
    });
    const documentsBefore = sdk.documents.totalHits;

    const { clientId, grants } = await connectEndToEnd(provider, person, 'V1 registered project');
    expect(clientId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(provider.authorizationUrl!.searchParams.get('client_id')).toBe(clientId);
    expect(shown).toEqual({ host: undefined, newClient: false });
    expect(grants).toEqual([expect.objectContaining({ client: { id: clientId, name: 'SDK v1 Registered Client' } })]);
    expect(sdk.documents.totalHits).toBe(documentsBefore);
  });
});
