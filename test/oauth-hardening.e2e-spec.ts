import { SessionTokenService } from '@app/credentials';
import { startTestApp, TestApp } from './helpers/test-app';
import { authorizePath, createPersonWithProject, openConsent, pkcePair, registerClient, TestBrowser } from './factories/oauth';

const CONSENT = '/api/agent/oauth/authorize';

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
