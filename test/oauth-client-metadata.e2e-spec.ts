import { createHash } from 'node:crypto';
import { AppConfig } from '@app/config';
import {
  authorizeCode,
  authorizePath,
  createPersonWithProject,
  openConsent,
  pkcePair,
  RegisteredTestClient,
  registerClient,
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

  it('warns when the client is new to this person; a localhost-only answer is a neutral note, not the warning a registered client gets (RFC 8252 §8.6)', async () => {
    const { browser, project } = await signedIn();
    const first = await openConsent(browser, authorizeQuery(client.client_id));
    expect(first.html).toContain('id="consent-new-client"');
    expect(first.html).toContain(`You have not connected this application before. Check that <strong><code>127.0.0.1:${docs.port}</code></strong> is the site`);
    // The document's site vouches for the name: answering on localhost is what a desktop client does.
    expect(first.html).toContain(
      '<p class="muted" role="note" id="consent-localhost-note">This application receives its answer on this computer (localhost), as desktop and command-line applications do.</p>',
    );
    expect(first.html).not.toContain('consent-localhost-only');

    await authorizeCode(t, { browser, client, projectId: project.id });
    const again = await openConsent(browser, authorizeQuery(client.client_id));
    expect(again.html).not.toContain('consent-new-client');
    expect(again.html).toContain('consent-localhost-note');

    // A client that registered itself with only loopback redirects proves nothing about its name:
    // any program here could have registered it, so the warning stays.
    const registered = await registerClient(t.baseUrl, { client_name: 'Registered Loopback Client', redirect_uris: [TEST_REDIRECT_URI] });
    const registeredPage = await openConsent(browser, authorizeQuery(registered.client_id));
    expect(registeredPage.html).toContain(
      '<div class="warning" role="note" id="consent-localhost-only">This application receives its answer only on this computer (localhost): any program running here could use this name.',
    );
    expect(registeredPage.html).not.toContain('consent-localhost-note');

    // A client that also answers at a site is not "localhost only".
    const web = docs.json('/web-client.json', (url) => ({
      client_id: url,
      client_name: 'Web Client',
      redirect_uris: ['https://app.example.com/callback', TEST_REDIRECT_URI],
    }));
    const webPage = await openConsent(browser, authorizeQuery(web));
    expect(webPage.html).toContain('consent-new-client');
    expect(webPage.html).not.toContain('consent-localhost-only');
    expect(webPage.html).not.toContain('consent-localhost-note');
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

/**
 * Document fetches are limited per requesting address at authorize, token and revoke alike (one
 * shared counter per address, in the database), besides the per-host limit; a cached document
 * is not fetched and does not count.
 */
describe('metadata-document fetches per requesting address', () => {
  let t: TestApp;
  let docs: DocumentServer;
  beforeAll(async () => {
    t = await startTestApp({
      CLIENT_METADATA_ALLOW_LOOPBACK: 'true',
      CLIENT_METADATA_FETCHES_PER_IP_PER_MINUTE: '2',
      CLIENT_METADATA_FETCHES_PER_HOST_PER_MINUTE: '1000',
      TRUST_PROXY: 'true',
    });
    docs = await DocumentServer.start();
  });
  afterAll(async () => {
    await docs.close();
    await t.close();
  });

  let seq = 0;
  const freshIp = () => `203.0.113.${++seq}`;
  /** A new document (its own path, cacheable for an hour); answers its URL and path. */
  const newDocument = () => {
    const path = `/limited/client-${++seq}.json`;
    const url = docs.json(path, (u) => ({ client_id: u, client_name: 'Limited Client', redirect_uris: [TEST_REDIRECT_URI] }), { 'cache-control': 'max-age=3600' });
    return { url, path };
  };
  const authorizeFrom = (ip: string, clientId: string) =>
    fetch(`${t.baseUrl}${authorizePath({ response_type: 'code', client_id: clientId, redirect_uri: TEST_REDIRECT_URI, code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`, {
      headers: { 'x-forwarded-for': ip },
      redirect: 'manual',
    });
  const revokeFrom = async (ip: string, clientId: string) => {
    const res = await fetch(`${t.baseUrl}/api/agent/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
      body: new URLSearchParams({ token: 'dgr_unknown', client_id: clientId }).toString(),
    });
    return { status: res.status, headers: res.headers, body: res.status === 200 ? {} : ((await res.json()) as Record<string, unknown>) };
  };
  const refreshFrom = (ip: string, clientId: string) =>
    tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: 'dgr_unknown', client_id: clientId }, { 'x-forwarded-for': ip });

  function expectLimitedJson(res: { status: number; headers: Headers; body: Record<string, unknown> }) {
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.stringMatching(/^Too many client metadata document fetches from this address or from this document's host; try again in \d+ s$/),
    });
  }

  it('at authorize: past the limit the error page (429, Retry-After, no redirect) and no fetch; cached documents still served; another address is served', async () => {
    const ip = freshIp();
    const [a, b, c] = [newDocument(), newDocument(), newDocument()];
    for (const doc of [a, b]) {
      const res = await authorizeFrom(ip, doc.url);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(/^\/login\?next=/);
    }
    const limited = await authorizeFrom(ip, c.url);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('location')).toBeNull();
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('content-type')).toContain('text/html');
    const page = await limited.text();
    expect(page).toContain('Application could not be verified yet');
    expect(page).toMatch(/Too many client metadata document fetches from this address or from this document(&#39;|&#x27;|’|')s host; try again in \d+ s/);
    expect(docs.hitsOf(c.path)).toBe(0);

    // A cached document needs no fetch: served, and not counted.
    expect((await authorizeFrom(ip, a.url)).status).toBe(302);
    expect(docs.hitsOf(a.path)).toBe(1);
    // Another address has its own budget.
    expect((await authorizeFrom(freshIp(), c.url)).status).toBe(302);
    expect(docs.hitsOf(c.path)).toBe(1);
  });

  it('at token: past the limit 429 temporarily_unavailable with Retry-After; a cached document is still resolved', async () => {
    const ip = freshIp();
    const [a, b, c] = [newDocument(), newDocument(), newDocument()];
    for (const doc of [a, b]) {
      const res = await refreshFrom(ip, doc.url);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    }
    expectLimitedJson(await refreshFrom(ip, c.url));
    expect(docs.hitsOf(c.path)).toBe(0);
    const cached = await refreshFrom(ip, a.url);
    expect(cached.status).toBe(400);
    expect(cached.body.error).toBe('invalid_grant');
    expect(docs.hitsOf(a.path)).toBe(1);
  });

  it('at revoke: past the limit 429 temporarily_unavailable with Retry-After; a cached document is still resolved', async () => {
    const ip = freshIp();
    const [a, b, c] = [newDocument(), newDocument(), newDocument()];
    for (const doc of [a, b]) expect((await revokeFrom(ip, doc.url)).status).toBe(200);
    expectLimitedJson(await revokeFrom(ip, c.url));
    expect(docs.hitsOf(c.path)).toBe(0);
    expect((await revokeFrom(ip, a.url)).status).toBe(200);
    expect(docs.hitsOf(a.path)).toBe(1);
  });

  it('one budget per address across the endpoints, counted in the shared database counters', async () => {
    const ip = freshIp();
    const [a, b, c] = [newDocument(), newDocument(), newDocument()];
    expect((await authorizeFrom(ip, a.url)).status).toBe(302);
    expect((await refreshFrom(ip, b.url)).status).toBe(400);
    expectLimitedJson(await revokeFrom(ip, c.url));
    // The address is kept as a digest, never in clear.
    const key = `cimd-fetch:ip:${createHash('sha256').update(ip).digest('hex').slice(0, 32)}`;
    expect(await t.dataSource.query('SELECT hits FROM rate_limit_counters WHERE key = $1', [key])).toEqual([{ hits: 3 }]);
    expect(await t.dataSource.query(`SELECT key FROM rate_limit_counters WHERE key LIKE 'cimd-fetch:%' AND strpos(key, $1) > 0`, [ip])).toEqual([]);
  });
});

/**
 * A client first used with a loopback document while CLIENT_METADATA_ALLOW_LOOPBACK=true stops
 * working once the switch is off (a restart with the other setting; here the running service's
 * configuration is changed, since the switch is read at each use): authorize, code exchange,
 * refresh and revoke refuse it, instead of finding the client row it left behind.
 */
describe('a loopback metadata-document client after CLIENT_METADATA_ALLOW_LOOPBACK is turned off', () => {
  let t: TestApp;
  let docs: DocumentServer;
  beforeAll(async () => {
    t = await startTestApp({ CLIENT_METADATA_ALLOW_LOOPBACK: 'true' });
    docs = await DocumentServer.start();
  });
  afterAll(async () => {
    await docs.close();
    await t.close();
  });

  it('is refused at authorize, token (code and refresh) and revoke once the switch is off', async () => {
    const clientId = docs.json('/dev/client.json', (url) => ({ client_id: url, client_name: 'Dev Client', redirect_uris: [TEST_REDIRECT_URI] }), {
      'cache-control': 'max-age=3600',
    });
    const client: RegisteredTestClient = { client_id: clientId, client_name: 'Dev Client', redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none' };
    const person = await createPersonWithProject(t);
    const browser = new TestBrowser(t.baseUrl);
    expect((await browser.login(person.user.email, person.user.password)).status).toBe(303);
    const tokens = await (async () => {
      const { code, verifier, redirectUri } = await authorizeCode(t, { browser, client, projectId: person.project.id });
      return tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: clientId });
    })();
    expect(tokens.status).toBe(200);
    const pending = await authorizeCode(t, { browser, client, projectId: person.project.id });

    Object.defineProperty(t.app.get(AppConfig), 'clientMetadataAllowLoopback', { value: false });

    const page = await browser.get(
      authorizePath({ response_type: 'code', client_id: clientId, redirect_uri: TEST_REDIRECT_URI, code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 's' }),
    );
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(await page.text()).toContain('The client_id URL must use https');

    const exchanged = await tokenRequest(t.baseUrl, {
      grant_type: 'authorization_code',
      code: pending.code,
      code_verifier: pending.verifier,
      redirect_uri: pending.redirectUri,
      client_id: clientId,
    });
    expect(exchanged.status).toBe(401);
    expect(exchanged.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed: The client_id URL must use https' });

    const refreshed = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string, client_id: clientId });
    expect(refreshed.status).toBe(401);
    expect(refreshed.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed: The client_id URL must use https' });

    const revoke = await fetch(`${t.baseUrl}/api/agent/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.body.refresh_token as string, client_id: clientId }).toString(),
    });
    expect(revoke.status).toBe(401);
  });
});

/**
 * A client's metadata document cannot be locked out for everyone: four addresses each asking for
 * 20 made-up paths on the client's host spend their own budgets and the host's failure budget,
 * never the budget of the host's real document, so another address still connects the real client
 * (its cached copy having expired, as for an existing user), and an address whose own budget is
 * spent is served the document it already knew (stale) instead of a 429.
 */
describe('metadata-document fetch budgets under made-up paths on a client host', () => {
  let t: TestApp;
  let docs: DocumentServer;
  beforeAll(async () => {
    t = await startTestApp({
      CLIENT_METADATA_ALLOW_LOOPBACK: 'true',
      CLIENT_METADATA_FETCHES_PER_IP_PER_MINUTE: '5',
      CLIENT_METADATA_FETCHES_PER_HOST_PER_MINUTE: '10',
      TRUST_PROXY: 'true',
    });
    docs = await DocumentServer.start();
  });
  afterAll(async () => {
    await docs.close();
    await t.close();
  });

  const authorizeFrom = (ip: string, clientId: string) =>
    fetch(`${t.baseUrl}${authorizePath({ response_type: 'code', client_id: clientId, redirect_uri: TEST_REDIRECT_URI, code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`, {
      headers: { 'x-forwarded-for': ip },
      redirect: 'manual',
    });
  const expire = (url: string) => t.dataSource.query(`UPDATE client_metadata_documents SET expires_at = now() - interval '1 second' WHERE client_id = $1`, [url]);

  it('four addresses × 20 made-up paths do not stop another address from connecting the real client', async () => {
    const real = docs.json('/real/client.json', (u) => ({ client_id: u, client_name: 'Real Client', redirect_uris: [TEST_REDIRECT_URI] }), {
      'cache-control': 'max-age=3600',
    });
    expect((await authorizeFrom('198.51.100.1', real)).status).toBe(302);
    expect(docs.hitsOf('/real/client.json')).toBe(1);
    await expire(real);

    const attackers = ['192.0.2.11', '192.0.2.12', '192.0.2.13', '192.0.2.14'];
    const statuses: number[] = [];
    for (const ip of attackers) {
      for (let i = 0; i < 20; i++) statuses.push((await authorizeFrom(ip, `${docs.origin}/made-up/${ip}/${i}.json`)).status);
    }
    // Each address is held to its own budget first, then the host's failure budget holds.
    expect(statuses.filter((s) => s === 400).length).toBe(10);
    expect(statuses.filter((s) => s === 429).length).toBe(70);
    expect(statuses.filter((s) => s !== 400 && s !== 429)).toEqual([]);

    // Another address connects the real client: its document is fetched again (not cached any more).
    const other = await authorizeFrom('198.51.100.2', real);
    expect(other.status).toBe(302);
    expect(other.headers.get('location')).toMatch(/^\/login\?next=/);
    expect(docs.hitsOf('/real/client.json')).toBe(2);
    // An existing user's refresh from yet another address resolves the client (the grant is unknown here: invalid_grant, not 429).
    await expire(real);
    const refresh = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: 'dgr_unknown', client_id: real }, { 'x-forwarded-for': '198.51.100.3' });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    expect(docs.hitsOf('/real/client.json')).toBe(3);

    // An attacker whose own budget is spent gets the real document it may use from the (expired) cache, without a fetch.
    await expire(real);
    expect((await authorizeFrom(attackers[0], real)).status).toBe(302);
    expect(docs.hitsOf('/real/client.json')).toBe(3);
    // A made-up path is still refused to it.
    expect((await authorizeFrom(attackers[0], `${docs.origin}/made-up/again.json`)).status).toBe(429);
  });
});
