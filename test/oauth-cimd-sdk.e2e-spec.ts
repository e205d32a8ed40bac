import { randomUUID } from 'node:crypto';
import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallbackServer } from './helpers/callback-server';
import { Chromium, chromiumAvailable } from './helpers/chromium';
import { TestOAuthProvider } from './helpers/oauth-provider';
import { ConsentShown, consentInChromium, gatewayJson, SdkGateway, startCimdSetup } from './helpers/sdk-gateway';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * The official MCP SDK v2 client identified by a Client ID Metadata Document
 * (`clientMetadataUrl` in its OAuth provider): no registration. The document is served over
 * https on this machine under the name `localhost` with a certificate made for the test; the
 * service runs as its own process trusting that certificate (`NODE_EXTRA_CA_CERTS`, as a
 * deployment trusts its CAs) with CLIENT_METADATA_ALLOW_LOOPBACK=true. The person signs in and
 * consents in Chromium.
 */
describeBrowser('the MCP SDK v2 client with clientMetadataUrl, consent in Chromium', () => {
  let sdk: SdkGateway;
  let callback: CallbackServer;
  let browser: Chromium;
  let clientId: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ callback, sdk, clientId, browser, close } = await startCimdSetup('/mcp-client.json', 'SDK Metadata Client'));
  }, 120_000);
  afterAll(() => close?.());

  const json = (path: string, init?: { method?: string; token?: string; body?: unknown }) => gatewayJson(sdk.gateway.url, path, init);

  it('connects without registering: discovery, sign-in and consent in Chromium, tools/call, refresh', async () => {
    const email = `cimd-${randomUUID().slice(0, 8)}@example.test`;
    const password = `pw-${randomUUID()}`;
    const signup = await json('/api/auth/signup', { method: 'POST', body: { email, password, name: 'Casey', organizationName: 'Cimd Org' } });
    expect(signup.status).toBe(201);
    const orgId = signup.body.organization.id as string;
    const project = await json(`/api/organizations/${orgId}/projects`, { method: 'POST', token: signup.body.accessToken, body: { name: 'Metadata project' } });
    expect(project.status).toBe(201);

    const serverUrl = new URL(`${sdk.gateway.url}/api/mcp`);
    const consentShown: ConsentShown = {};
    const consent = consentInChromium(browser.context, callback, { email, password }, { clientName: 'SDK Metadata Client', projectName: 'Metadata project' }, consentShown);
    const provider = new TestOAuthProvider({
      clientMetadataUrl: clientId,
      redirectUri: callback.redirectUri,
      clientName: 'SDK Metadata Client',
      state: 'cimd-state',
      authorize: consent,
    });

    // Discovery advertises metadata documents, so the SDK uses the URL as client_id and never registers.
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.clientInformation()?.client_id).toBe(clientId);
    expect(provider.authorizationUrl!.searchParams.get('client_id')).toBe(clientId);
    expect(consentShown).toEqual({ host: `localhost:${sdk.documents.port}`, newClient: true });

    const back = callback.received[callback.received.length - 1];
    expect(back.searchParams.get('state')).toBe('cimd-state');
    expect(await auth(provider, { serverUrl, authorizationCode: back.searchParams.get('code')!, iss: back.searchParams.get('iss')! })).toBe('AUTHORIZED');
    const first = provider.tokens()!;
    expect(first.access_token).toMatch(/^dga_/);
    expect(first.refresh_token).toMatch(/^dgr_/);

    const mcp = new Client({ name: 'cimd-sdk-e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const result = await mcp.callTool({ name: 'get_project', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: project.body.id, name: 'Metadata project', organization: { id: orgId, name: 'Cimd Org' } });
    await mcp.close();

    // Refresh through the SDK: a new pair, and the new access token works.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    const refreshed = provider.tokens()!;
    expect(refreshed.refresh_token).toMatch(/^dgr_/);
    expect(refreshed.access_token).not.toBe(first.access_token);
    const again = new Client({ name: 'cimd-sdk-e2e', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    expect((await again.callTool({ name: 'get_project', arguments: {} })).isError).toBeFalsy();
    await again.close();

    // The document was fetched once and served every later step from the cache; no client registered.
    expect(sdk.documents.hitsOf('/mcp-client.json')).toBe(1);
    const grants = await json('/api/me/agent-grants', { token: signup.body.accessToken });
    expect(grants.body).toEqual([expect.objectContaining({ client: { id: clientId, name: 'SDK Metadata Client' } })]);
  });
});
