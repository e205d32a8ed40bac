import { randomBytes, randomUUID } from 'node:crypto';
import { GatewayProcess, startGatewayProcess } from './helpers/gateway-process';
import { startSingleSignOn, TEST_IDP_CLIENT_ID, TEST_IDP_CLIENT_SECRET } from './helpers/identity';
import { freePort } from './helpers/postgres-server';
import { ClonedDatabase, cloneTemplateDatabase, withClient } from './helpers/template-database';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { readTestState, testDatabaseKind } from './helpers/test-state';

/**
 * Login CSRF across instances (SPEC §10, "Starting single sign-on"): the state of a sign-in is
 * single use on the server, so an answer of the IdP replayed with its `ag_sso_state` cookie is
 * refused (400) on the other instance too. Needs the real PostgreSQL run.
 */
const onPostgres = testDatabaseKind() === 'postgres';
(onPostgres ? describe : describe.skip)('single sign-on state on two instances', () => {
  let a: GatewayProcess;
  let b: GatewayProcess;
  let idp: TestIdp;
  let database: ClonedDatabase | undefined;

  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    idp = await startTestIdp();
    database = await cloneTemplateDatabase(postgres.port, 'ssostate');
    const [portA, portB] = [await freePort(), await freePort()];
    const shared = {
      BASE_URL: `http://127.0.0.1:${portA}`,
      DATABASE_URL: database.url,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true',
    };
    [a, b] = await Promise.all([startGatewayProcess(portA, shared), startGatewayProcess(portB, shared)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), idp?.stop()]);
    await database?.drop();
  });

  async function json(url: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
    const res = await fetch(`${url}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it('an answer replayed with its state cookie on the other instance is refused (400), after its first use signed in', async () => {
    const domain = `corp-${randomUUID().slice(0, 8)}.example`;
    const signup = await json(a.url, '/api/auth/signup', {
      method: 'POST',
      body: { email: `owner@other-${randomUUID().slice(0, 6)}.example`, password: `pw-${randomUUID()}`, name: 'Owner', organizationName: 'Corp' },
    });
    expect(signup.status).toBe(201);
    const { organization, accessToken } = signup.body as { organization: { id: string }; accessToken: string };
    const redirectUri = (await json(a.url, `/api/organizations/${organization.id}/identity-provider/redirect-uri`, { token: accessToken })).body.redirectUri as string;
    await idp.addClient({ clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, redirectUris: [redirectUri] });
    const put = await json(a.url, `/api/organizations/${organization.id}/identity-provider`, {
      method: 'PUT',
      token: accessToken,
      body: { issuer: idp.issuer, clientId: TEST_IDP_CLIENT_ID, clientSecret: TEST_IDP_CLIENT_SECRET, emailDomains: [domain], defaultRole: 'member' },
    });
    expect(put.status).toBe(200);
    await withClient(database!.url, (c) => c.query('UPDATE identity_provider_domains SET verified_at = now() WHERE organization_id = $1', [organization.id]));

    const email = `vic@${domain}`;
    idp.setAccount('vic-sub', { email, email_verified: true, name: 'Vic' });
    const started = await startSingleSignOn(a.url, email);
    expect(started.status).toBe(303);
    const cookie = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))!.split(';')[0]!;
    const answer = new URL(await idp.signInWithoutBrowser(started.headers.get('location')!, 'vic-sub'));

    const first = await fetch(answer, { redirect: 'manual', headers: { cookie } });
    expect(first.status).toBe(303);
    expect(first.headers.getSetCookie().some((c) => c.startsWith('ag_session='))).toBe(true);

    const onB = new URL(`${answer.pathname}${answer.search}`, b.url);
    const replay = await fetch(onB, { redirect: 'manual', headers: { cookie } });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('already used');
    expect(replay.headers.getSetCookie().some((c) => c.startsWith('ag_session='))).toBe(false);
  });
});
