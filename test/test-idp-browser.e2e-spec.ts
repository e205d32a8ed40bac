import { createHash, randomBytes } from 'node:crypto';
import { CallbackServer } from './helpers/callback-server';
import { Chromium, chromiumAvailable, launchChromium } from './helpers/chromium';
import { startTestIdp, TestIdp } from './helpers/test-idp';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/** The tests' identity provider's login page, as a Chromium sign-in through it goes (Debian Chromium). */
describeBrowser("Test identity provider's login page in Chromium", () => {
  let idp: TestIdp;
  let browser: Chromium;
  let callback: CallbackServer;

  beforeAll(async () => {
    idp = await startTestIdp();
    callback = await CallbackServer.start();
    await idp.addClient({ clientId: 'gateway-sso', clientSecret: 'sso-secret', redirectUris: [callback.redirectUri] });
    idp.setAccount('carol-sub', { email: 'carol@acme.example', email_verified: true, name: 'Carol' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await callback?.close();
    await idp?.stop();
  });

  it('asks for the subject, refuses an unknown one, and sends the browser back to the redirect URI with code and state', async () => {
    const authorize = new URL(`${idp.issuer}/auth`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'gateway-sso',
      redirect_uri: callback.redirectUri,
      scope: 'openid email',
      state: 'browser-state',
      nonce: 'browser-nonce',
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const page = await browser.context.newPage();
    // Each step fails on its own, naming its locator, well inside the test's time.
    page.setDefaultTimeout(15_000);
    try {
      await page.goto(authorize.href);
      await expect(page.title()).resolves.toBe('Test identity provider: sign in');
      await page.getByLabel('Subject').fill('nobody');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe('No account "nobody" at this identity provider.');
      await page.getByLabel('Subject').fill('carol-sub');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const back = await callback.next(20_000, () => page.url());
      expect(back.searchParams.get('state')).toBe('browser-state');
      expect(back.searchParams.get('code')).toEqual(expect.any(String));
      expect(back.searchParams.get('iss')).toBe(idp.issuer);
    } finally {
      await page.close();
    }
  });
});
