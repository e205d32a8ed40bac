import { randomUUID } from 'node:crypto';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { createTeam } from './factories/rest';
import { Chromium, chromiumAvailable, launchChromium } from './helpers/chromium';
import { seriousAxeViolations, signInBrowser } from './helpers/dashboard-browser';
import { connectWithVerifiedDomains, redirectUriFor, signInThroughIdp, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain } from './helpers/identity';
import { connectClient } from './helpers/mcp';
import { savePolicy } from './helpers/policy';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

describeBrowser('the approval page asks a single sign-on session to sign in again through its IdP (Debian Chromium)', () => {
  let t: TestApp;
  let idp: TestIdp;
  let browser: Chromium;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.stop();
  });

  it('a decision after 15 minutes offers "Sign in again with" the IdP; after signing in there the person is back on the page and the approval goes through', async () => {
    const team = await createTeam(t);
    const orgId = team.organization.id;
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [await redirectUriFor(t, orgId, team.admin.jwt)] });
    const domain = testDomain();
    await connectWithVerifiedDomains(t, orgId, team.admin.jwt, { issuer: idp.issuer, emailDomains: [domain], groupsClaim: 'groups', roleMappings: [{ group: 'gw-admins', role: 'admin' }] });
    await savePolicy(t, team, [{ id: 'look-first', tools: ['create_task'], effect: 'approve', approval: { approvers: 'admins' } }]);
    const sub = `ann-${randomUUID().slice(0, 6)}`;
    const email = `${sub}@${domain}`;
    idp.setAccount(sub, { email, email_verified: true, name: 'Ann Approver', groups: ['gw-admins'] });
    const session = await signInThroughIdp(t.baseUrl, idp, email, sub);

    const project = await createProject(t.dataSource, orgId, 'Website relaunch');
    const { accessToken } = await insertConnectedClient(t.dataSource, { userId: team.member.id, organizationId: orgId, projectId: project.id, permissions: [...AGENT_PERMISSION_NAMES] });
    const agent = await connectClient(t.baseUrl, '2025-06-18', { Authorization: `Bearer ${accessToken}` });
    const held = await agent.client.callTool({ name: 'create_task', arguments: { title: 'Pay invoice' } });
    const url = /(http\S+\/approvals\/[0-9a-f-]{36})/.exec((held.content as { text: string }[])[0].text)![1];
    const host = new URL(idp.issuer).host;

    await signInBrowser(browser.context, t.baseUrl, session);
    const page = await browser.context.newPage();
    try {
      await page.goto(url);
      await page.getByRole('heading', { name: 'An agent asks to run create_task', level: 1 }).waitFor();
      await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE sso_issuer = $1 AND user_id = (SELECT id FROM users WHERE email = $2)`, [
        idp.issuer,
        email,
      ]);
      await page.getByRole('button', { name: 'Approve this call' }).click();
      await page.getByText(`A decision needs a sign-in within the last 15 minutes: sign in again with ${host}`).waitFor();
      expect(await page.getByLabel(/Your password/).count()).toBe(0);
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByRole('link', { name: `Sign in again with ${host}` }).click();
      await page.getByRole('heading', { name: 'Sign in to the test identity provider' }).waitFor();
      expect(await page.getByLabel('Subject').inputValue()).toBe(email);
      await page.getByLabel('Subject').fill(sub);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(url);
      await page.getByRole('button', { name: 'Approve this call' }).click();
      await page.getByText('Approved. The agent may now run this call once, within 10 minutes.').waitFor();
      const cookies = await browser.context.cookies(t.baseUrl);
      expect(cookies.find((c) => c.name === 'ag_session')?.value).toBe(session);
      const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM sessions WHERE user_id = (SELECT id FROM users WHERE email = $1)`, [email]);
      expect(count).toBe(1);
    } finally {
      await page.close();
      await agent.close();
    }
  });
});
