import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { EXIT } from '../apps/cli/src/cli';
import { runCliCaptured } from './helpers/cli';
import { processEnded } from './helpers/gateway-process';
import { connectIdentityProvider, redirectUriFor, startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET, testDomain, verifyDomainForTests } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { testDatabaseKind } from './helpers/test-state';
import { signupOverHttp, SignedUp } from './factories/rest';
import { AccountsService } from '@app/people';

const ROOT = join(__dirname, '..');
const onPostgres = testDatabaseKind() === 'postgres';

const refusalFor = (domain: string) => ({
  statusCode: 409,
  code: 'sso_required_for_domain',
  error: 'Conflict',
  message: `Accounts of ${domain} addresses come from its organization's single sign-on: sign in with single sign-on (/auth/sso/start) instead of signing up`,
});

/**
 * Email squatting (SPEC §10, "Verified domains own their emails"): a password sign-up for an email
 * of an organisation's verified domain is refused, so nobody takes a person's address before their
 * first single sign-on; an address taken before its domain was verified is freed by the operator's
 * `release-email`, after which the person's single sign-on makes their own account.
 */
describe('single sign-on: verified domains own their emails', () => {
  let t: TestApp;
  let idp: TestIdp;
  let admin: SignedUp;
  /** Verified by the admin's organisation. */
  let verified: string;
  /** Claimed by it, not verified. */
  let pending: string;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', SIGNUP_RATE_LIMIT_PER_HOUR: '1000' });
    admin = await signupOverHttp(t);
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [await redirectUriFor(t, admin.organization.id, admin.accessToken)] });
    verified = testDomain('owned');
    pending = testDomain('pending');
    await connectIdentityProvider(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer, emailDomains: [verified, pending] });
    await verifyDomainForTests(t, admin.organization.id, verified);
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const api = () => request(t.baseUrl);
  const accountsWith = async (email: string) => (await t.dataSource.query('SELECT id FROM users WHERE lower(email) = lower($1)', [email])) as { id: string }[];

  /** Single sign-on through the test IdP as `sub`; answers the callback's response, unfollowed. */
  async function singleSignOn(email: string, sub: string): Promise<Response> {
    const started = await startSingleSignOn(t.baseUrl, email);
    expect(started.status).toBe(303);
    const cookie = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!.split(';')[0]!;
    return fetch(await idp.signInWithoutBrowser(started.headers.get('location')!, sub), { redirect: 'manual', headers: { cookie } });
  }
  const sessionOf = (res: Response) =>
    decodeURIComponent(res.headers.getSetCookie().find((c) => c.startsWith('ag_session='))?.split(';')[0]?.slice('ag_session='.length) ?? '');

  it('refuses a password sign-up for an email of a verified domain with 409 sso_required_for_domain, in any case; a pending domain does not refuse it', async () => {
    for (const email of [`victim@${verified}`, `Victim@${verified.toUpperCase()}`]) {
      const res = await api().post('/api/auth/signup').send({ email, password: `pw-${randomUUID()}`, name: 'Mallory', organizationName: 'Squat Org' }).expect(409);
      expect(res.body).toEqual(refusalFor(verified));
    }
    expect(await accountsWith(`victim@${verified}`)).toEqual([]);
    await signupOverHttp(t, { email: `early@${pending}` });
    expect(await accountsWith(`early@${pending}`)).toHaveLength(1);
  });

  it('the sign-up page says so beside the email and links to single sign-on for that address', async () => {
    const agent = request.agent(t.baseUrl);
    const page = await agent.get('/signup').expect(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const email = `page-victim@${verified}`;
    const res = await agent
      .post('/signup')
      .type('form')
      .send({ csrf, email, name: 'Mallory', password: 'correct horse battery staple', organizationName: 'Squat Org' })
      .expect(409);
    expect(res.text).toContain(`Addresses of ${verified} sign in with their organisation&#39;s single sign-on.`);
    expect(res.text).toContain(`href="/auth/sso/start?email=${encodeURIComponent(email)}"`);
    expect(await accountsWith(email)).toEqual([]);
  });

  it("an invitation of another organisation does not open a password sign-up for such an email either, nor does the operator's create-admin", async () => {
    const other = await signupOverHttp(t);
    const email = `invited@${verified}`;
    const invitation = (await api().post(`/api/organizations/${other.organization.id}/members`).auth(other.accessToken, { type: 'bearer' }).send({ email, role: 'member' }).expect(201))
      .body as { token: string };
    const res = await api().post('/api/auth/signup').send({ email, password: `pw-${randomUUID()}`, name: 'Ivy', invitation: invitation.token }).expect(409);
    expect(res.body).toEqual(refusalFor(verified));
    await expect(t.app.get(AccountsService).createAccount({ email, password: `pw-${randomUUID()}`, name: 'Ivy', organizationName: 'CLI Org' }, 'cli')).rejects.toMatchObject({
      code: 'sso_required_for_domain',
    });
    expect(await accountsWith(email)).toEqual([]);
    // The invitation stays open: the person signs in with single sign-on and accepts it then.
    expect(await t.dataSource.query('SELECT accepted_at FROM invitations WHERE organization_id = $1', [other.organization.id])).toEqual([{ accepted_at: null }]);
  });

  it('an address taken before its domain was verified: release-email frees it (the account keeps its id and memberships, loses the address and its sessions), then the person signs in with single sign-on to an account of their own', async () => {
    const squatDomain = testDomain('squat');
    const email = `vera@${squatDomain}`;
    const squatter = await signupOverHttp(t, { email, organizationName: 'Squatter Org' });
    await connectIdentityProvider(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer, emailDomains: [verified, pending, squatDomain] });
    await verifyDomainForTests(t, admin.organization.id, squatDomain);

    // The squatter's account blocks Vera: single sign-on finds an account with a password and asks for it.
    idp.setAccount('vera-sub', { email, email_verified: true, name: 'Vera Victim' });
    const blocked = await singleSignOn(email, 'vera-sub');
    expect(blocked.status).toBe(303);
    expect(blocked.headers.get('location')).toBe('/auth/sso/link');

    const released = await t.app.get(AccountsService).releaseEmail(email, { actorType: 'cli', actorId: null });
    expect(released).toEqual({ userId: squatter.user.id, email, replacement: `released-${squatter.user.id}@released.invalid` });
    await api().get('/api/me').auth(squatter.accessToken, { type: 'bearer' }).expect(401);
    await api().post('/api/auth/login').send({ email, password: squatter.password }).expect(401);
    expect(await t.dataSource.query('SELECT email FROM users WHERE id = $1', [squatter.user.id])).toEqual([{ email: released.replacement }]);
    expect(await t.dataSource.query('SELECT role FROM memberships WHERE user_id = $1', [squatter.user.id])).toEqual([{ role: 'admin' }]);
    const [event] = await t.dataSource.query(`SELECT actor_type, target_id, metadata FROM audit_events WHERE action = 'account.email_released' AND target_id = $1`, [squatter.user.id]);
    expect(event).toEqual({ actor_type: 'cli', target_id: squatter.user.id, metadata: { email, replacement: released.replacement, organizationId: admin.organization.id } });

    const signedIn = await singleSignOn(email, 'vera-sub');
    expect(signedIn.status).toBe(303);
    const me = (await api().get('/api/me').auth(sessionOf(signedIn), { type: 'bearer' }).expect(200)).body as { user: { id: string; email: string } };
    expect(me.user.email).toBe(email);
    expect(me.user.id).not.toBe(squatter.user.id);
  });

  it('release-email refuses an unknown address, an address of no verified domain and an account single sign-on made or linked, and changes nothing', async () => {
    const accounts = t.app.get(AccountsService);
    const cli = { actorType: 'cli', actorId: null };
    await expect(accounts.releaseEmail(`nobody@${verified}`, cli)).rejects.toMatchObject({ kind: 'not_found', message: `No account uses the email nobody@${verified}` });
    await expect(accounts.releaseEmail(`early@${pending}`, cli)).rejects.toMatchObject({
      kind: 'conflict',
      message: `${pending} is not a verified domain of an organization with single sign-on: its addresses are not reserved, so nothing is released`,
    });
    const email = `sam-${randomUUID().slice(0, 6)}@${verified}`;
    idp.setAccount('sam-sub', { email, email_verified: true, name: 'Sam' });
    expect((await singleSignOn(email, 'sam-sub')).status).toBe(303);
    await expect(accounts.releaseEmail(email.toUpperCase(), cli)).rejects.toMatchObject({
      kind: 'conflict',
      message: `The account of ${email} is linked to single sign-on: it is that person's own, and is not released`,
    });
    expect(await accountsWith(email)).toHaveLength(1);
    expect(await accountsWith(`early@${pending}`)).toHaveLength(1);
  });

  it('the command line: release-email needs --email, and names what it refuses', async () => {
    const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent' };
    const missing = await runCliCaptured(['release-email'], env);
    expect(missing).toMatchObject({ code: EXIT.usage, stdout: '', stderr: expect.stringContaining('release-email needs --email.') });
    const unknown = await runCliCaptured(['release-email', '--email', 'a@b.example', '--force'], env);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain("Unknown option '--force'");
    expect((await runCliCaptured(['help'], env)).stdout).toContain('release-email --email <email>');
  });

  (onPostgres ? it : it.skip)('release-email beside the running service on PostgreSQL frees the address; a second run finds no account', async () => {
    const squatDomain = testDomain('squat-cli');
    const email = `cleo@${squatDomain}`;
    const squatter = await signupOverHttp(t, { email });
    await connectIdentityProvider(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer, emailDomains: [verified, pending, squatDomain] });
    await verifyDomainForTests(t, admin.organization.id, squatDomain);
    const cwd = mkdtempSync(join(tmpdir(), 'ag-cli-'));
    const env = { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: join(cwd, 'data'), DATABASE_URL: t.config.databaseUrl! };
    const run = (args: string[]) =>
      processEnded(
        spawn(process.execPath, ['-r', join(ROOT, 'test/helpers/register-ts.cjs'), join(ROOT, 'apps/cli/src/main.ts'), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }),
      );
    try {
      const done = await run(['release-email', '--email', email]);
      expect(done).toMatchObject({
        code: EXIT.ok,
        stdout: expect.stringContaining(
          `${email} is released: the account ${squatter.user.id} is now released-${squatter.user.id}@released.invalid, its sessions are ended, its memberships kept.`,
        ),
      });
      const again = await run(['release-email', '--email', email]);
      expect(again).toMatchObject({ code: EXIT.failed, stderr: `No account uses the email ${email}\n` });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    await api().get('/api/me').auth(squatter.accessToken, { type: 'bearer' }).expect(401);
    expect(await accountsWith(email)).toEqual([]);
  }, 60_000);
});
