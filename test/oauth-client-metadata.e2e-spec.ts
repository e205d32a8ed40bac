import {
  authorizeCode,
  authorizePath,
  createPersonWithProject,
  openConsent,
  pkcePair,
  RegisteredTestClient,
  TEST_REDIRECT_URI,
  TestBrowser,
  tokenRequest,
} from './factories/oauth';
import { DocumentServer } from './helpers/document-server';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * A client identified by a Client ID Metadata Document at authorize, token and revoke, with the
 * document served from this machine (CLIENT_METADATA_ALLOW_LOOPBACK=true).
 */
describe('OAuth with a Client ID Metadata Document client', () => {
  let t: TestApp;
  let docs: DocumentServer;
  let client: RegisteredTestClient;
  beforeAll(async () => {
    t = await startTestApp({ CLIENT_METADATA_ALLOW_LOOPBACK: 'true' });
    docs = await DocumentServer.start();
    const clientId = docs.json('/app/oauth-client.json', (url) => ({
      client_id: url,
      client_name: 'Metadata Client',
      redirect_uris: [TEST_REDIRECT_URI],
      token_endpoint_auth_method: 'none',
    }), { 'cache-control': 'max-age=3600' });
    client = { client_id: clientId, client_name: 'Metadata Client', redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none' };
  });
  afterAll(async () => {
    await docs.close();
    await t.close();
  });

  async function signedIn() {
    const person = await createPersonWithProject(t);
    const browser = new TestBrowser(t.baseUrl);
    expect((await browser.login(person.user.email, person.user.password)).status).toBe(303);
    return { ...person, browser };
  }

  const authorizeQuery = (clientId: string, redirectUri = TEST_REDIRECT_URI) =>
    authorizePath({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 's',
    });

  it('is advertised in the authorisation server metadata', async () => {
    const res = await fetch(`${t.baseUrl}/.well-known/oauth-authorization-server`);
    expect(((await res.json()) as Record<string, unknown>).client_id_metadata_document_supported).toBe(true);
  });

  it('shows the client name and the host of its client_id on the consent page', async () => {
    const { browser } = await signedIn();
    const consent = await openConsent(browser, authorizeQuery(client.client_id));
    expect(consent.html).toContain('Allow <strong>Metadata Client</strong> to use Agent Gateway?');
    expect(consent.html).toContain(`Identified by <strong><code>127.0.0.1:${docs.port}</code></strong>`);
  });

  it('connects end to end: code, token, MCP call, refresh, revoke', async () => {
    const { browser, project } = await signedIn();
    const { code, verifier, redirectUri } = await authorizeCode(t, { browser, client, projectId: project.id });
    const tokens = await tokenRequest(t.baseUrl, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      resource: `${t.baseUrl}/api/mcp`,
    });
    expect(tokens.status).toBe(200);
    const access = tokens.body.access_token as string;
    const call = await fetch(`${t.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${access}`, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_project', arguments: {} } }),
    });
    expect(call.status).toBe(200);
    expect(await call.text()).toContain(project.id);

    const refreshed = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string, client_id: client.client_id });
    expect(refreshed.status).toBe(200);
    const revoke = await fetch(`${t.baseUrl}/api/agent/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshed.body.refresh_token as string, client_id: client.client_id }).toString(),
    });
    expect(revoke.status).toBe(200);
    const after = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token as string, client_id: client.client_id });
    expect(after.status).toBe(400);
    expect(after.body.error).toBe('invalid_grant');
    // One fetch served authorize, token, refresh and revoke: the document is cached.
    expect(docs.hitsOf('/app/oauth-client.json')).toBe(1);
  });

  it('refuses a redirect URI that is not in the document with the error page', async () => {
    const { browser } = await signedIn();
    const res = await browser.get(authorizeQuery(client.client_id, 'http://127.0.0.1:8976/elsewhere'));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('not one the application registered');
  });

  it('refuses a document whose client_id differs from its URL with the error page naming the problem', async () => {
    const { browser } = await signedIn();
    const url = docs.json('/impostor.json', () => ({ client_id: 'https://claude.ai/oauth/client.json', client_name: 'Claude', redirect_uris: [TEST_REDIRECT_URI] }));
    const res = await browser.get(authorizeQuery(url));
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('Application could not be verified');
    expect(body).toContain('The client metadata document has a client_id that differs from the URL it was fetched from');
  });

  it('answers invalid_client at the token endpoint for a client_secret or an unusable document', async () => {
    const withSecret = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: 'dgr_x', client_id: client.client_id, client_secret: 'anything' });
    expect(withSecret.status).toBe(401);
    expect(withSecret.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed: a metadata-document client is public and has no secret' });
    const missing = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: 'dgr_x', client_id: `${docs.origin}/missing.json` });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      error: 'invalid_client',
      error_description: 'Client authentication failed: The client metadata document at 127.0.0.1 answered HTTP 404 instead of 200',
    });
  });
});
