import { randomUUID } from 'node:crypto';
import { createPersonWithProject, hiddenField, TestBrowser } from './factories/oauth';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * `next` after sign-in and sign-up (issue: `/login?next=/%09/evil.example` went to evil.example,
 * because a browser drops TAB, CR and LF from a URL and `/\t/evil.example` becomes
 * `//evil.example`). Only a path that stays on this service's origin is followed.
 */
const OFF_SITE_NEXTS = [
  '/\t/evil.example',
  '/\r/evil.example',
  '/\n/evil.example',
  '/\t\t/evil.example/x?y=1',
  '\t//evil.example',
  '/\u000b/evil.example',
  '/\u001f/evil.example',
  '/\u007f/evil.example',
  '/\\evil.example',
  '/\\/evil.example',
  '\\\\evil.example',
  '//evil.example',
  '///evil.example',
  'https://evil.example/',
  'javascript:alert(1)',
  ' /x',
];

function sameOrigin(location: string | null, baseUrl: string): boolean {
  return location !== null && new URL(location, baseUrl).origin === new URL(baseUrl).origin;
}

describe('next after sign-in and sign-up stays on this service', () => {
  let t: TestApp;
  let person: Awaited<ReturnType<typeof createPersonWithProject>>;
  beforeAll(async () => {
    t = await startTestApp({ LOGIN_MAX_FAILURES_PER_EMAIL: '1000', LOGIN_MAX_FAILURES_PER_IP: '1000', SIGNUP_RATE_LIMIT_PER_HOUR: '1000' });
    person = await createPersonWithProject(t);
  });
  afterAll(() => t.close());

  it('the sign-in page never carries an off-site next into its form, from the query string', async () => {
    for (const next of OFF_SITE_NEXTS) {
      const res = await new TestBrowser(t.baseUrl).get(`/login?next=${encodeURIComponent(next)}`);
      expect(res.status).toBe(200);
      expect(hiddenField(await res.text(), 'next')).toBe('/');
    }
    // the literal payload of the report, percent-encoded TAB
    const res = await new TestBrowser(t.baseUrl).get('/login?next=/%09/evil.example');
    expect(hiddenField(await res.text(), 'next')).toBe('/');
  });

  it.each(OFF_SITE_NEXTS.map((n) => [JSON.stringify(n), n]))('sign-in with next=%s lands on /', async (_shown, next) => {
    const browser = new TestBrowser(t.baseUrl);
    const res = await browser.login(person.user.email, person.user.password, next);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
  });

  it.each(OFF_SITE_NEXTS.map((n) => [JSON.stringify(n), n]))('sign-up with next=%s lands on the dashboard, /', async (_shown, next) => {
    const browser = new TestBrowser(t.baseUrl);
    const page = await browser.get(`/signup?next=${encodeURIComponent(next)}`);
    const html = await page.text();
    expect(html).not.toContain('evil.example');
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const res = await browser.post('/signup', {
      csrf,
      next,
      name: 'N',
      email: `next-${randomUUID().slice(0, 8)}@example.test`,
      password: `long enough ${randomUUID()}`,
      organizationName: 'O',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
  });

  it('still follows a path on this service, with its query', async () => {
    const next = '/api/agent/oauth/authorize?client_id=abc&state=a%20b';
    const res = await new TestBrowser(t.baseUrl).login(person.user.email, person.user.password, next);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(next);
    expect(sameOrigin(res.headers.get('location'), t.baseUrl)).toBe(true);
  });
});
