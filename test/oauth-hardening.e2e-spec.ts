import { SessionTokenService } from '@app/people';
import { startTestApp, TestApp } from './helpers/test-app';
import { authorizeCode, authorizePath, connectClient, createPersonWithProject, openConsent, pkcePair, registerClient, RegisteredTestClient, TestBrowser, tokenRequest } from './factories/oauth';

const CONSENT = '/api/agent/oauth/authorize';

/** A person connected through a confidential client (client_secret_post): its secret and token pair. */
async function connectConfidential(t: TestApp) {
  const person = await createPersonWithProject(t);
  const browser = new TestBrowser(t.baseUrl);
  const { accessToken: session } = await t.app.get(SessionTokenService).issue(person.user.id);
  browser.cookies.set('ag_session', session);
  const client = await registerClient(t.baseUrl, { token_endpoint_auth_method: 'client_secret_post' });
  const { code, verifier, redirectUri } = await authorizeCode(t, { browser, client, projectId: person.project.id });
  const tokens = await tokenRequest(t.baseUrl, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: client.client_id,
    client_secret: client.client_secret,
  });
  if (tokens.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens.body)}`);
  return { ...person, client, accessToken: tokens.body.access_token as string, refreshToken: tokens.body.refresh_token as string };
}

const revoke = (baseUrl: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/api/agent/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });

const grantRevoked = async (t: TestApp, clientId: string) =>
  ((await t.dataSource.query('SELECT revoked_at IS NOT NULL AS revoked FROM oauth_grants WHERE client_id = $1', [clientId])) as { revoked: boolean }[]).map(
    (r) => r.revoked,
  );

describe('OAuth hardening', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterAll(() => t.close());

  /** A browser signed in as `userId` (session cookie issued directly). */
  async function signedIn(userId: string): Promise<TestBrowser> {
    const browser = new TestBrowser(t.baseUrl);
    const { accessToken } = await t.app.get(SessionTokenService).issue(userId);
    browser.cookies.set('ag_session', accessToken);
    return browser;
  }

  describe('authorize errors are redirected only to a client the signed-in person has authorised (RFC 9700 §4.11.2)', () => {
    /** An authorize request for `client` that passes the client and redirect checks but fails later (response_type=x). */
    const failing = (client: RegisteredTestClient, extra: Record<string, string> = {}) =>
      authorizePath({
        response_type: 'x',
        client_id: client.client_id,
        redirect_uri: client.redirect_uris[0],
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 'st-9',
        ...extra,
      });

    async function expectErrorPage(res: Response) {
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('<h1 id="error-title">Invalid request</h1>');
      expect(html).not.toContain('evil.example');
      return html;
    }

    it('no session and a client nobody authorised: the error page, not a 302 to the client', async () => {
      const client = await registerClient(t.baseUrl, { redirect_uris: ['https://evil.example/landing'] });
      await expectErrorPage(await fetch(`${t.baseUrl}${failing(client)}`, { redirect: 'manual' }));
      // Whatever the later error: no PKCE, a foreign resource, a duplicated state.
      for (const path of [
        authorizePath({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uris[0] }),
        failing(client, { response_type: 'code', resource: 'https://other.example/api/mcp' }),
        `${failing(client)}&state=again`,
      ]) {
        const res = await fetch(`${t.baseUrl}${path}`, { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
      }
    });

    it('no session, even for a client other people have authorised: the error page', async () => {
      const connected = await connectClient(t);
      const res = await fetch(`${t.baseUrl}${failing(connected.client as RegisteredTestClient)}`, { redirect: 'manual' });
      await expectErrorPage(res);
    });

    it('a signed-in person who never authorised this client: the error page', async () => {
      const person = await createPersonWithProject(t);
      const client = await registerClient(t.baseUrl, { redirect_uris: ['https://evil.example/landing'] });
      const browser = await signedIn(person.user.id);
      await expectErrorPage(await browser.get(failing(client)));
    });

    it('a signed-in person with a live grant for this client: the error goes back to the client with state and iss', async () => {
      const connected = await connectClient(t);
      const client = connected.client as RegisteredTestClient;
      const res = await connected.browser.get(failing(client));
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(client.redirect_uris[0]);
      expect(Object.fromEntries(location.searchParams)).toEqual({
        error: 'unsupported_response_type',
        error_description: 'Only response_type=code is supported',
        state: 'st-9',
        iss: t.baseUrl,
      });
    });
  });

  describe('revocation authenticates confidential clients (RFC 7009 §2.1)', () => {
    it('without its secret, a confidential client’s grant stays alive; with it, it ends', async () => {
      const c = await connectConfidential(t);
      expect((await revoke(t.baseUrl, { token: c.refreshToken })).status).toBe(200);
      expect((await revoke(t.baseUrl, { token: c.accessToken })).status).toBe(200);
      const noSecret = await revoke(t.baseUrl, { token: c.refreshToken, client_id: c.client.client_id });
      expect(noSecret.status).toBe(401);
      expect(((await noSecret.json()) as { error: string }).error).toBe('invalid_client');
      const wrong = await revoke(t.baseUrl, { token: c.refreshToken, client_id: c.client.client_id, client_secret: `${c.client.client_secret!.slice(0, -2)}xx` });
      expect(wrong.status).toBe(401);
      expect(await grantRevoked(t, c.client.client_id)).toEqual([false]);
      const [access] = await t.dataSource.query('SELECT revoked_at FROM agent_tokens WHERE client_id = $1', [c.client.client_id]);
      expect(access.revoked_at).toBeNull();
      const refreshed = await tokenRequest(t.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: c.refreshToken,
        client_id: c.client.client_id,
        client_secret: c.client.client_secret,
      });
      expect(refreshed.status).toBe(200);

      const basic = `Basic ${Buffer.from(`${encodeURIComponent(c.client.client_id)}:${c.client.client_secret!}`).toString('base64')}`;
      expect((await revoke(t.baseUrl, { token: refreshed.body.refresh_token as string }, { authorization: basic })).status).toBe(200);
      expect(await grantRevoked(t, c.client.client_id)).toEqual([true]);
    });

    it('a public client still revokes with its client_id, or with the token alone', async () => {
      const a = await connectClient(t);
      expect((await revoke(t.baseUrl, { token: a.refreshToken, client_id: a.client.client_id })).status).toBe(200);
      expect(await grantRevoked(t, a.client.client_id)).toEqual([true]);
      const b = await connectClient(t);
      expect((await revoke(t.baseUrl, { token: b.refreshToken })).status).toBe(200);
      expect(await grantRevoked(t, b.client.client_id)).toEqual([true]);
    });
  });

  describe('an authorization code presented by another client', () => {
    async function freshCode() {
      const person = await createPersonWithProject(t);
      const browser = await signedIn(person.user.id);
      const client = await registerClient(t.baseUrl);
      const issued = await authorizeCode(t, { browser, client, projectId: person.project.id });
      const exchange = (clientId: string) =>
        tokenRequest(t.baseUrl, {
          grant_type: 'authorization_code',
          code: issued.code,
          code_verifier: issued.verifier,
          redirect_uri: issued.redirectUri,
          client_id: clientId,
        });
      return { person, client, exchange };
    }

    it('a replay of a used code by another client leaves the victim’s grant and tokens alive', async () => {
      const { person, client, exchange } = await freshCode();
      const first = await exchange(client.client_id);
      expect(first.status).toBe(200);
      const attacker = await registerClient(t.baseUrl);
      const replay = await exchange(attacker.client_id);
      expect(replay.status).toBe(400);
      expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code was issued to another client' });
      expect(await grantRevoked(t, client.client_id)).toEqual([false]);
      const refreshed = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string, client_id: client.client_id });
      expect(refreshed.status).toBe(200);
      const events = await t.dataSource.query("SELECT 1 FROM audit_events WHERE action = 'grant.revoked' AND project_id = $1", [person.project.id]);
      expect(events).toEqual([]);

      // The code's own client replaying it still ends the grant.
      const own = await exchange(client.client_id);
      expect(own.body.error_description).toBe('The authorization code was already used; every token issued from it has been revoked');
      expect(await grantRevoked(t, client.client_id)).toEqual([true]);
    });

    it('another client presenting an unused code does not spend it', async () => {
      const { client, exchange } = await freshCode();
      const attacker = await registerClient(t.baseUrl);
      expect((await exchange(attacker.client_id)).body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code was issued to another client' });
      const rightful = await exchange(client.client_id);
      expect(rightful.status).toBe(200);
      expect(await grantRevoked(t, client.client_id)).toEqual([false]);
    });
  });

  describe('the consent post refuses what the browser marks as cross-site', () => {
    async function pendingConsent() {
      const person = await createPersonWithProject(t);
      const client = await registerClient(t.baseUrl);
      const browser = await signedIn(person.user.id);
      const consent = await openConsent(
        browser,
        authorizePath({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: client.redirect_uris[0],
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
          state: 'st',
        }),
      );
      const post = (headers: Record<string, string>) =>
        fetch(`${t.baseUrl}${CONSENT}`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            cookie: `ag_session=${browser.cookies.get('ag_session')!}`,
            ...headers,
          },
          body: new URLSearchParams({
            request_id: consent.requestId,
            csrf_token: consent.csrfToken,
            project_id: person.project.id,
            permissions: 'project:read',
            decision: 'approve',
          }).toString(),
        });
      return { person, client, post };
    }

    it('a post with Sec-Fetch-Site: cross-site or same-site, or a foreign Origin, gets 403 and creates no grant, even with the session and the form token', async () => {
      const { person, client, post } = await pendingConsent();
      const refusedHeaders: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        { origin: 'https://evil.example' },
        { origin: 'null', 'sec-fetch-site': 'cross-site' },
        { origin: `${t.baseUrl}.evil.example` },
      ];
      for (const headers of refusedHeaders) {
        const res = await post(headers);
        expect(res.status).toBe(403);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await res.text()).toContain('This answer did not come from the consent page.');
      }
      const grants = await t.dataSource.query('SELECT 1 FROM oauth_grants WHERE user_id = $1 AND client_id = $2', [person.user.id, client.client_id]);
      expect(grants).toEqual([]);

      // The same post from the consent page itself goes through.
      const res = await post({ origin: new URL(t.baseUrl).origin, 'sec-fetch-site': 'same-origin' });
      expect(res.status).toBe(303);
      expect(new URL(res.headers.get('location')!).searchParams.get('code')).toMatch(/^dgc_/);
    });
  });
});

describe('token and revocation endpoint limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000',
      TOKEN_MAX_FAILURES_PER_CLIENT_AND_IP: '3',
      TOKEN_MAX_AUTH_FAILURES_PER_CLIENT: '4',
      REVOCATION_MAX_FAILURES_PER_CLIENT_AND_IP: '3',
      TRUST_PROXY: 'true',
    });
  });
  afterAll(() => t.close());

  let ipSeq = 0;
  const freshIp = () => `198.51.100.${++ipSeq}`;
  const from = (ip: string) => ({ 'x-forwarded-for': ip });

  function expectLimited(res: Awaited<ReturnType<typeof tokenRequest>>) {
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('Too many failed token requests') });
  }

  it('failures per (client_id, address): past the limit that address gets 429 with Retry-After, even for a valid token; another address is served', async () => {
    const c = await connectClient(t);
    const ip = freshIp();
    for (let i = 0; i < 3; i++) {
      const res = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: `dgr_guess${i}`, client_id: c.client.client_id }, from(ip));
      expect(res.status).toBe(400);
    }
    expectLimited(await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id }, from(ip)));
    // The same client from the person's own address: the valid refresh token is never refused for someone else's failures.
    const ok = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id }, from(freshIp()));
    expect(ok.status).toBe(200);
    // Another client from the limited address is served too.
    const other = await connectClient(t);
    expect((await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: other.refreshToken, client_id: other.client.client_id }, from(ip))).status).toBe(200);
  });

  it('failures sent at once: each is counted, and past the limit the address is refused, even for a valid token', async () => {
    const c = await connectClient(t);
    const ip = freshIp();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: `dgr_burst${i}`, client_id: c.client.client_id }, from(ip))),
    );
    // Each is refused: 400 when it passed the counter's read before the others were counted, 429 after.
    for (const res of answers) expect([400, 429]).toContain(res.status);
    const counted = answers.filter((res) => res.status === 400).length;
    expect(counted).toBeGreaterThanOrEqual(3);
    const rows: { hits: number }[] = await t.dataSource.query(`SELECT hits FROM rate_limit_counters WHERE key LIKE 'oauth-token:%' AND key LIKE $1`, [`%:${ip}`]);
    expect(rows).toEqual([{ hits: counted }]);
    expectLimited(await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id }, from(ip)));
  });

  it('successful requests do not count', async () => {
    const c = await connectClient(t);
    const ip = freshIp();
    let refreshToken = c.refreshToken;
    for (let i = 0; i < 5; i++) {
      const res = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: c.client.client_id }, from(ip));
      expect(res.status).toBe(200);
      refreshToken = res.body.refresh_token as string;
    }
    // Nothing was written for them: a success never touches the address's counter.
    expect(await t.dataSource.query(`SELECT key FROM rate_limit_counters WHERE key LIKE $1`, [`%:${ip}`])).toEqual([]);
  });

  it('per client alone only failed authentication of a confidential client counts, and the right secret is still served', async () => {
    const c = await connectConfidential(t);
    for (let i = 0; i < 4; i++) {
      const res = await tokenRequest(
        t.baseUrl,
        { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id, client_secret: `cs_wrong${i}` },
        from(freshIp()),
      );
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    }
    expectLimited(
      await tokenRequest(
        t.baseUrl,
        { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id, client_secret: 'cs_wrong_again' },
        from(freshIp()),
      ),
    );
    const ok = await tokenRequest(
      t.baseUrl,
      { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id, client_secret: c.client.client_secret },
      from(freshIp()),
    );
    expect(ok.status).toBe(200);
  });

  it('the counters are shared through the database, so every instance sees them', async () => {
    const c = await connectClient(t);
    const ip = freshIp();
    await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: 'dgr_nope', client_id: c.client.client_id }, from(ip));
    const rows: { key: string; hits: number }[] = await t.dataSource.query(`SELECT key, hits FROM rate_limit_counters WHERE key LIKE 'oauth-token:%' AND key LIKE $1`, [`%:${ip}`]);
    expect(rows.map((r) => r.hits)).toEqual([1]);
    expect(rows[0].key).not.toContain(c.client.client_id);
  });

  async function expectRevocationLimited(res: Response, what: string) {
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(new RegExp(`^Too many failed revocation requests ${what}; retry in \\d+ s$`)) });
  }

  it('revocation: tokens that are not the client’s count per (client_id, address); past the limit 429 with Retry-After, even for its own token; another address is served', async () => {
    const c = await connectClient(t);
    const ip = freshIp();
    for (const token of ['dgr_guess', 'dga_guess', 'not-a-token']) {
      expect((await revoke(t.baseUrl, { token, client_id: c.client.client_id }, from(ip))).status).toBe(200);
    }
    await expectRevocationLimited(await revoke(t.baseUrl, { token: c.refreshToken, client_id: c.client.client_id }, from(ip)), 'from this address for this client');
    expect(await grantRevoked(t, c.client.client_id)).toEqual([false]);
    // Not the token endpoint's counter: the limited address still refreshes.
    const refreshed = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id }, from(ip));
    expect(refreshed.status).toBe(200);
    expect((await revoke(t.baseUrl, { token: refreshed.body.refresh_token as string, client_id: c.client.client_id }, from(freshIp()))).status).toBe(200);
    expect(await grantRevoked(t, c.client.client_id)).toEqual([true]);
  });

  it('revocation: a request naming no client is counted per address', async () => {
    const c = await connectClient(t);
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await revoke(t.baseUrl, { token: `dgr_guess${i}` }, from(ip))).status).toBe(200);
    await expectRevocationLimited(await revoke(t.baseUrl, { token: c.refreshToken }, from(ip)), 'from this address for this client');
    expect(await grantRevoked(t, c.client.client_id)).toEqual([false]);
  });

  it('revocation: requests for the client’s own tokens do not count, even repeated', async () => {
    const c = await connectClient(t);
    const ip = freshIp();
    expect((await revoke(t.baseUrl, { token: c.accessToken, client_id: c.client.client_id }, from(ip))).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await revoke(t.baseUrl, { token: c.refreshToken, client_id: c.client.client_id }, from(ip))).status).toBe(200);
    expect(await grantRevoked(t, c.client.client_id)).toEqual([true]);
    const rows: { hits: number }[] = await t.dataSource.query(`SELECT hits FROM rate_limit_counters WHERE key LIKE 'oauth-revoke:client-ip:%' AND key LIKE $1`, [`%:${ip}`]);
    // Nothing was counted: the requests that succeed write no counter at all.
    expect(rows).toEqual([]);
  });

  it('revocation: a confidential client’s failed authentication counts on the same per-client counter as at the token endpoint', async () => {
    const c = await connectConfidential(t);
    for (let i = 0; i < 2; i++) {
      const res = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id, client_secret: `cs_wrong${i}` }, from(freshIp()));
      expect(res.status).toBe(401);
    }
    for (let i = 0; i < 2; i++) {
      const res = await revoke(t.baseUrl, { token: c.refreshToken, client_id: c.client.client_id, client_secret: `cs_wrong${i}` }, from(freshIp()));
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    }
    await expectRevocationLimited(
      await revoke(t.baseUrl, { token: c.refreshToken, client_id: c.client.client_id, client_secret: 'cs_wrong_again' }, from(freshIp())),
      'to authenticate as this client',
    );
    expect(await grantRevoked(t, c.client.client_id)).toEqual([false]);
    const ok = await revoke(t.baseUrl, { token: c.refreshToken, client_id: c.client.client_id, client_secret: c.client.client_secret! }, from(freshIp()));
    expect(ok.status).toBe(200);
    expect(await grantRevoked(t, c.client.client_id)).toEqual([true]);
  });
});
