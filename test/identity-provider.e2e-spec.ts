import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { IdentityLinkDirectory, IdentityProviderDirectory } from '@app/identity';
import { ClientRegistrationService } from '@app/oauth';
import { EXIT } from '../apps/cli/src/cli';
import { runCliCaptured } from './helpers/cli';
import { addMember, createProject, createUser } from './factories';
import { createApiKey, createTeam } from './factories/rest';
import { createOrganizationClient } from './factories/id-jag';
import { DocumentServer } from './helpers/document-server';
import { processEnded } from './helpers/gateway-process';
import { connectIdentityProvider, FakeTxtRecords, identityProviderPath, identityProviderSettings, testDomain, verifyDomainForTests } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { testDatabaseKind } from './helpers/test-state';

const onPostgres = testDatabaseKind() === 'postgres';
const ROOT = join(__dirname, '..');

/** The command line in this process, for refusals that end before it opens the database. */
function cliInProcess(argv: string[]) {
  return runCliCaptured(argv, { NODE_ENV: 'test', LOG_LEVEL: 'silent' });
}

/**
 * The real command line (`apps/cli/src/main.ts`, compiled on the fly) in its own process: in this
 * process its passport strategies would replace the running service's.
 */
function runCliProcess(args: string[], env: Record<string, string>) {
  return processEnded(
    spawn(process.execPath, ['-r', join(ROOT, 'test/helpers/register-ts.cjs'), join(ROOT, 'apps/cli/src/main.ts'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/**
 * An organisation's identity-provider settings over REST: saving (the issuer's discovery document
 * and key set fetched and checked), the client secret never shown, claimed email domains and their
 * verification (DNS TXT through a fake resolver, and the operator's command line), removal, and
 * who may do it. The IdP is the tests' oidc-provider on loopback; broken IdPs are documents
 * served by a local server.
 */
describe('identity-provider settings', () => {
  let t: TestApp;
  let idp: TestIdp;
  let docs: DocumentServer;
  let signingKey: Record<string, unknown>;
  const txt = new FakeTxtRecords();
  // The service logs at debug level into this buffer (its log lines go to stdout and stderr), so a test can look for a secret in them.
  const logs: string[] = [];
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write);

  beforeAll(async () => {
    for (const stream of streams) {
      stream.write = ((chunk: string | Uint8Array) => (logs.push(String(chunk)), true)) as typeof stream.write;
    }
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'debug' }, { providers: [txt.provider] });
    idp = await startTestIdp();
    docs = await DocumentServer.start();
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    signingKey = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  });
  afterAll(async () => {
    await docs?.close();
    await idp?.stop();
    await t?.close();
    streams.forEach((stream, i) => (stream.write = writes[i]));
  });

  /** A session opened through the test IdP: it still opens an organisation that requires single sign-on. */
  const ssoSessionFor = async (userId: string) => (await t.app.get(SessionTokenService).issue(userId, {}, { ssoIssuer: idp.issuer })).accessToken;
  const put = (jwt: string, orgId: string, body: object) =>
    request(t.baseUrl).put(identityProviderPath(orgId)).set('Authorization', `Bearer ${jwt}`).send(body);
  const get = (jwt: string, orgId: string) => request(t.baseUrl).get(identityProviderPath(orgId)).set('Authorization', `Bearer ${jwt}`);
  const verify = (jwt: string, orgId: string, domain: string) =>
    request(t.baseUrl).post(`${identityProviderPath(orgId)}/domains/${encodeURIComponent(domain)}/verify`).set('Authorization', `Bearer ${jwt}`);
  const auditOf = async (orgId: string) =>
    (await t.dataSource.query('SELECT action, metadata FROM audit_events WHERE organization_id = $1 ORDER BY created_at, id', [orgId])) as {
      action: string;
      metadata: Record<string, unknown>;
    }[];

  /**
   * An IdP made of documents on the local server, under `/<name>`: a valid discovery document and
   * key set, changed by `discovery` and `jwks`. Answers its issuer.
   */
  function fakeIdp(
    name: string,
    change: { discovery?: (doc: Record<string, unknown>) => Record<string, unknown>; jwks?: () => unknown } = {},
  ): string {
    const issuer = `${docs.origin}/${name}`;
    docs.json(`/${name}/.well-known/openid-configuration`, () =>
      (change.discovery ?? ((d) => d))({
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      }),
    );
    docs.json(`/${name}/jwks`, () => (change.jwks ?? (() => ({ keys: [signingKey] })))());
    return issuer;
  }

  it('connects an identity provider: the settings are shown without the client secret, which no answer, audit event or log line carries', async () => {
    const { organization, admin } = await createTeam(t);
    const secret = `idp-secret-${randomUUID()}`;
    const domain = testDomain();
    const saved = await put(admin.jwt, organization.id, {
      issuer: idp.issuer,
      clientId: 'gateway-sso',
      clientSecret: secret,
      emailDomains: [domain.toUpperCase(), `${domain}.`],
      groupsClaim: 'groups',
      roleMappings: [{ group: 'admins', role: 'admin' }],
      requireSso: false,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      organizationId: organization.id,
      issuer: idp.issuer,
      clientId: 'gateway-sso',
      clientSecretSet: true,
      redirectUri: expect.stringMatching(new RegExp(`^${t.baseUrl}/auth/sso/callback/[A-Za-z0-9_-]{22}$`)),
      legacyRedirectUri: false,
      emailDomains: [domain],
      defaultRole: 'member',
      groupsClaim: 'groups',
      roleMappings: [{ group: 'admins', role: 'admin' }],
      requireSso: false,
      acceptIdJag: false,
      idJagClients: [],
      adminSignedInAt: null,
      discovery: { issuer: idp.issuer, pkceAdvertised: true, codeChallengeMethods: expect.arrayContaining(['S256']) },
    });
    expect(saved.body.discovery.signingKeys).toBeGreaterThanOrEqual(1);
    expect(saved.body.domains).toEqual([
      {
        domain,
        status: 'pending',
        verifiedAt: null,
        txtRecord: { name: `_agent-gateway.${domain}`, type: 'TXT', value: expect.stringMatching(/^agent-gateway-verification=[A-Za-z0-9_-]{20,}$/) },
      },
    ]);
    const shown = await get(admin.jwt, organization.id).expect(200);
    expect(shown.body).toEqual(saved.body);
    expect(JSON.stringify(saved.body)).not.toContain(secret);
    expect(JSON.stringify(shown.body)).not.toContain('clientSecret"');

    // A save without clientSecret keeps the stored one.
    const kept = await put(admin.jwt, organization.id, { issuer: idp.issuer, clientId: 'gateway-sso-2', emailDomains: [domain] }).expect(200);
    expect(kept.body.clientId).toBe('gateway-sso-2');
    expect(kept.body.domains[0].txtRecord).toEqual(saved.body.domains[0].txtRecord);
    expect(await t.app.get(IdentityProviderDirectory).clientSecretOf(organization.id)).toBe(secret);

    // Refusals do not echo the secret either.
    const refused = await put(admin.jwt, organization.id, { issuer: 'ftp://idp.example.com', clientId: 'x', clientSecret: secret }).expect(400);
    expect(JSON.stringify(refused.body)).not.toContain(secret);
    const tooLong = `${secret}${'x'.repeat(2100)}`;
    const refusedLong = await put(admin.jwt, organization.id, { issuer: idp.issuer, clientId: 'x', clientSecret: tooLong }).expect(400);
    expect(JSON.stringify(refusedLong.body)).not.toContain(secret);

    const events = await auditOf(organization.id);
    expect(events.map((e) => e.action)).toEqual(['identity_provider.updated', 'identity_provider.updated']);
    expect(events[0].metadata).toMatchObject({ created: true, issuer: idp.issuer, clientSecretChanged: true, domainsAdded: [domain] });
    expect(events[1].metadata).toMatchObject({ created: false, clientSecretChanged: false, domainsAdded: [] });
    expect(JSON.stringify(events)).not.toContain(secret);
    await new Promise((resolve) => setImmediate(resolve));
    const logged = logs.join('');
    expect(logged).toContain('identity-provider');
    expect(logged).not.toContain(secret);
  });

  it('refuses settings the sign-in could not use, with a 400 that names what is wrong; nothing is saved', async () => {
    const { organization, admin, other } = await createTeam(t);
    const otherProject = await createProject(t.dataSource, other.id);
    const otherClient = await t.app.get(ClientRegistrationService).createConfidential(other.id, "Another organisation's client", { actorType: 'system', actorId: null });
    const ownProject = await createProject(t.dataSource, organization.id);
    const closed = await DocumentServer.start();
    const closedOrigin = closed.origin;
    await closed.close();
    const base = { clientId: 'gateway-sso', clientSecret: 'a-secret' };
    const cases: [string, object, string, RegExp][] = [
      ['not a URL', { issuer: 'idp.example.com' }, 'invalid_issuer', /absolute URL/],
      ['plain http to a public host', { issuer: 'http://idp.example.com' }, 'invalid_issuer', /https/],
      ['unreachable', { issuer: `${closedOrigin}/gone` }, 'identity_provider_unreachable', /identity provider/],
      ['no discovery document', { issuer: `${docs.origin}/nothing-here` }, 'identity_provider_unreachable', /discovery document/],
      [
        'discovery names another issuer',
        { issuer: fakeIdp('mismatch', { discovery: (d) => ({ ...d, issuer: 'https://elsewhere.example.com' }) }) },
        'discovery_issuer_mismatch',
        /https:\/\/elsewhere\.example\.com/,
      ],
      [
        'no S256',
        { issuer: fakeIdp('plain-pkce', { discovery: (d) => ({ ...d, code_challenge_methods_supported: ['plain'] }) }) },
        'pkce_s256_unsupported',
        /S256/,
      ],
      ['key set without signing keys', { issuer: fakeIdp('no-keys', { jwks: () => ({ keys: [] }) }) }, 'invalid_jwks', /no usable signing key/],
      [
        'key set with only a symmetric and an encryption key',
        {
          issuer: fakeIdp('bad-keys', {
            jwks: () => ({ keys: [{ kty: 'oct', k: 'c2VjcmV0', alg: 'HS256' }, { ...signingKey, use: 'enc' }] }),
          }),
        },
        'invalid_jwks',
        /no usable signing key/,
      ],
      ['key set that is not JSON', { issuer: fakeIdp('jwks-text', { jwks: () => 'not json' }) }, 'invalid_jwks', /key set is not a JSON object/],
      ['no client secret', { issuer: idp.issuer, clientSecret: undefined }, 'client_secret_required', /clientSecret is required/],
      ['admin as default role', { issuer: idp.issuer, defaultRole: 'admin' }, 'invalid_default_role', /defaultRole cannot be admin/],
      ['role mappings without a groups claim', { issuer: idp.issuer, roleMappings: [{ group: 'g', role: 'admin' }] }, 'invalid_role_mappings', /groupsClaim/],
      ['an email address as domain', { issuer: idp.issuer, emailDomains: ['ada@example.com'] }, 'invalid_email_domain', /emailDomains\[0\].*not an email address/],
      ['a bad domain', { issuer: idp.issuer, emailDomains: ['example.com', 'not a domain'] }, 'invalid_email_domain', /emailDomains\[1\] is not a domain name/],
      [
        "another organisation's project for an ID-JAG client",
        { issuer: idp.issuer, idJagClients: [{ clientId: 'c', projectId: otherProject.id }] },
        'invalid_id_jag_clients',
        /idJagClients\[0\]\.projectId is not a project of this organisation/,
      ],
      // SPEC §10: only the organisation's own clients may be named.
      [
        'a made-up ID-JAG client',
        { issuer: idp.issuer, idJagClients: [{ clientId: 'made-up-client', projectId: ownProject.id }] },
        'invalid_id_jag_clients',
        /^idJagClients\[0\]\.clientId is not a client of this organisation: an admin makes an organisation client/,
      ],
      [
        "another organisation's client",
        { issuer: idp.issuer, idJagClients: [{ clientId: otherClient.clientId, projectId: null }] },
        'invalid_id_jag_clients',
        /^idJagClients\[0\]\.clientId is not a client of this organisation/,
      ],
    ];
    for (const [what, change, code, message] of cases) {
      const res = await put(admin.jwt, organization.id, { ...base, ...change });
      expect({ what, status: res.status, code: res.body.code }).toEqual({ what, status: 400, code });
      expect({ what, message: res.body.message }).toEqual({ what, message: expect.stringMatching(message) });
    }
    const invalidBody = await put(admin.jwt, organization.id, { ...base, issuer: idp.issuer, requireSso: 'yes', extra: 1 }).expect(400);
    expect(invalidBody.body.message).toEqual(expect.arrayContaining(['requireSso must be true or false', 'property extra should not exist']));
    await get(admin.jwt, organization.id).expect(404);
    expect(await auditOf(organization.id)).toEqual([]);
  });

  it('extra scopes are kept in order without the standard ones or repeats, shown and audited; a scope that is not a scope token is refused by name', async () => {
    const { organization, admin } = await createTeam(t);
    const base = { issuer: idp.issuer, clientId: 'gateway-sso', clientSecret: 'a-secret' };
    const saved = await put(admin.jwt, organization.id, { ...base, scopes: [' groups ', 'openid', 'offline_access', 'groups', 'email'] }).expect(200);
    expect(saved.body.scopes).toEqual(['groups', 'offline_access']);
    expect((await get(admin.jwt, organization.id).expect(200)).body.scopes).toEqual(['groups', 'offline_access']);
    const [event] = await auditOf(organization.id);
    expect(event.metadata).toMatchObject({ scopes: ['groups', 'offline_access'] });

    const refusals: [unknown, RegExp][] = [
      [['groups', 'two words'], /^scopes\[1\] is not a scope token/],
      [['say"hi"'], /^scopes\[0\] is not a scope token/],
      [['back\\slash'], /^scopes\[0\] is not a scope token/],
      [['  '], /^scopes\[0\] must be a non-empty string/],
    ];
    for (const [scopes, message] of refusals) {
      const res = await put(admin.jwt, organization.id, { ...base, scopes }).expect(400);
      expect({ scopes, code: res.body.code, message: res.body.message }).toEqual({ scopes, code: 'invalid_scopes', message: expect.stringMatching(message) });
    }
    // The body's shape is checked before the service: the messages name the field.
    const shapes: [unknown, string][] = [
      ['groups', 'scopes must be an array of scope names'],
      [[7], 'scopes must contain scope names (strings)'],
      [Array.from({ length: 21 }, (_, i) => `s${i}`), 'scopes may list at most 20 scopes'],
      [['x'.repeat(101)], 'each scope in scopes must be at most 100 characters'],
    ];
    for (const [scopes, message] of shapes) {
      const res = await put(admin.jwt, organization.id, { ...base, scopes }).expect(400);
      expect(res.body.message).toEqual(expect.arrayContaining([message]));
    }
    // Nothing refused was saved; leaving scopes out asks for none beyond the standard ones.
    expect((await get(admin.jwt, organization.id).expect(200)).body.scopes).toEqual(['groups', 'offline_access']);
    expect((await put(admin.jwt, organization.id, base).expect(200)).body.scopes).toEqual([]);
  });

  it('turning on requireSso when it would lock people out answers 409 naming them and saves nothing, until confirmLockout', async () => {
    const { organization, admin, member } = await createTeam(t);
    const domain = testDomain();
    const base = { issuer: idp.issuer, clientId: 'gateway-sso', clientSecret: 'a-secret', emailDomains: [domain] };
    await put(admin.jwt, organization.id, base).expect(200);
    await verifyDomainForTests(t, organization.id, domain);
    // Who can sign in through the IdP: a person of a verified domain, and a person linked to the issuer.
    const insider = await createUser(t.dataSource, { email: `ina-${randomUUID().slice(0, 6)}@${domain}`, name: 'Ina Insider' });
    await addMember(t.dataSource, organization.id, insider.id, 'member');
    const linked = await createUser(t.dataSource, { name: 'Lin Linked' });
    await addMember(t.dataSource, organization.id, linked.id, 'admin');
    await t.dataSource.transaction((em) => t.app.get(IdentityLinkDirectory).link(linked.id, idp.issuer, 'lin-sub', em));
    const before = (await get(admin.jwt, organization.id).expect(200)).body;
    const eventsBefore = (await auditOf(organization.id)).length;

    const refused = await put(admin.jwt, organization.id, { ...base, requireSso: true }).expect(409);
    expect(refused.body.code).toBe('lockout_confirmation_required');
    expect(refused.body.message).toBe(
      `Requiring single sign-on would lock out 2 people who cannot sign in through the identity provider (no account linked to it, and no email of a verified domain): ${admin.email} (admin), ${member.email} (member). Save again with confirmLockout true to require it anyway, or verify their email domains first.`,
    );
    expect((await get(admin.jwt, organization.id).expect(200)).body).toEqual(before);
    expect(await auditOf(organization.id)).toHaveLength(eventsBefore);
    await put(admin.jwt, organization.id, { ...base, requireSso: true, confirmLockout: false }).expect(409);
    const badFlag = await put(admin.jwt, organization.id, { ...base, requireSso: true, confirmLockout: 'yes' }).expect(400);
    expect(badFlag.body.message).toEqual(expect.arrayContaining(['confirmLockout must be true or false']));

    const confirmed = await put(admin.jwt, organization.id, { ...base, requireSso: true, confirmLockout: true }).expect(200);
    expect(confirmed.body.requireSso).toBe(true);
    const events = await auditOf(organization.id);
    expect(events.at(-1)!.metadata).toMatchObject({ requireSso: true, lockoutConfirmed: [admin.email, member.email], lockedOutCount: 2 });
    // Already required through this issuer, no verified domain dropped: a later save asks nothing again.
    const later = await request(t.baseUrl).put(identityProviderPath(organization.id)).set('Authorization', `Bearer ${await ssoSessionFor(admin.id)}`).send({ ...base, clientId: 'gateway-sso-2', requireSso: true });
    expect(later.status).toBe(200);
    // Dropping the verified domain while it is required locks Ina out too: asked again.
    const dropped = await request(t.baseUrl).put(identityProviderPath(organization.id)).set('Authorization', `Bearer ${await ssoSessionFor(admin.id)}`).send({ ...base, emailDomains: [], requireSso: true });
    expect(dropped.status).toBe(409);
    expect(dropped.body.message).toContain(`${insider.email} (member)`);
    expect(dropped.body.message).not.toContain(linked.email);
  });

  it('turning on requireSso when everyone can sign in through the identity provider needs no confirmation', async () => {
    const { organization, admin, member } = await createTeam(t);
    const domain = testDomain();
    const base = { issuer: idp.issuer, clientId: 'gateway-sso', clientSecret: 'a-secret', emailDomains: [domain] };
    await put(admin.jwt, organization.id, base).expect(200);
    await verifyDomainForTests(t, organization.id, domain);
    await t.dataSource.transaction(async (em) => {
      await t.app.get(IdentityLinkDirectory).link(admin.id, idp.issuer, `ada-${admin.id}`, em);
      await t.app.get(IdentityLinkDirectory).link(member.id, idp.issuer, `max-${member.id}`, em);
    });
    const saved = await put(admin.jwt, organization.id, { ...base, requireSso: true }).expect(200);
    expect(saved.body.requireSso).toBe(true);
    expect((await auditOf(organization.id)).at(-1)!.metadata).not.toHaveProperty('lockoutConfirmed');
  });

  it('two first saves at once: each is saved whole or refused with 409, never a 500', async () => {
    const { organization, admin } = await createTeam(t);
    const [first, second] = [testDomain(), testDomain()];
    const answers = await Promise.all(
      [first, second].map((domain) => put(admin.jwt, organization.id, identityProviderSettings({ issuer: idp.issuer, emailDomains: [domain] }))),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect([['200', '200'], ['200', '409']]).toContainEqual(statuses.map(String));
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.code).toBe('identity_provider_changed');
    const last = (await get(admin.jwt, organization.id).expect(200)).body;
    expect(last.emailDomains).toHaveLength(1);
    const updates = (await auditOf(organization.id)).filter((e) => e.action === 'identity_provider.updated');
    expect(updates).toHaveLength(answers.filter((a) => a.status === 200).length);
    expect(updates[updates.length - 1].metadata.emailDomains).toEqual(last.emailDomains);
  });

  it('refuses public mail domains', async () => {
    const { organization, admin } = await createTeam(t);
    for (const domain of ['gmail.com', 'Outlook.COM', 'gmx.de', 'yahoo.co.jp', 'proton.me']) {
      const res = await put(admin.jwt, organization.id, identityProviderSettings({ issuer: idp.issuer, emailDomains: [domain] })).expect(400);
      expect(res.body).toMatchObject({ code: 'public_email_domain', message: expect.stringContaining(domain.toLowerCase()) });
    }
    // A company's own subdomain that begins like a public service is not caught.
    const own = `live.${testDomain()}`;
    await connectIdentityProvider(t, organization.id, admin.jwt, { issuer: idp.issuer, emailDomains: [own] });
  });

  it('a domain verified by another organisation is refused; pending claims do not count', async () => {
    const a = await createTeam(t);
    const b = await createTeam(t);
    const verified = testDomain();
    const contested = testDomain();
    await connectIdentityProvider(t, a.organization.id, a.admin.jwt, { issuer: idp.issuer, emailDomains: [verified, contested] });
    await verifyDomainForTests(t, a.organization.id, verified);

    const refused = await put(b.admin.jwt, b.organization.id, identityProviderSettings({ issuer: idp.issuer, emailDomains: [verified] })).expect(409);
    expect(refused.body).toMatchObject({ statusCode: 409, code: 'domain_claimed', message: `${verified} is verified by another organisation` });

    // Both may claim a domain nobody verified; the first to verify it keeps it.
    await connectIdentityProvider(t, b.organization.id, b.admin.jwt, { issuer: idp.issuer, emailDomains: [contested] });
    const record = (await get(b.admin.jwt, b.organization.id).expect(200)).body.domains[0].txtRecord;
    txt.publishRecord(record);
    await verifyDomainForTests(t, a.organization.id, contested);
    const late = await verify(b.admin.jwt, b.organization.id, contested).expect(409);
    expect(late.body).toMatchObject({ code: 'domain_claimed' });
    expect((await get(b.admin.jwt, b.organization.id)).body.domains[0].status).toBe('pending');

    // Removing a domain from the list deletes its claim: another organisation may then verify it.
    await connectIdentityProvider(t, a.organization.id, a.admin.jwt, { issuer: idp.issuer, emailDomains: [verified] });
    expect((await get(a.admin.jwt, a.organization.id)).body.emailDomains).toEqual([verified]);
    const moved = await verify(b.admin.jwt, b.organization.id, contested).expect(200);
    expect(moved.body).toMatchObject({ domain: contested, status: 'verified' });
  });

  it('verifies a domain by its DNS TXT record: a wrong token is refused, the right one verifies', async () => {
    const { organization, admin } = await createTeam(t);
    const [atLabel, atApex, unreachable] = [testDomain(), testDomain(), testDomain()];
    const shown = await connectIdentityProvider(t, organization.id, admin.jwt, { issuer: idp.issuer, emailDomains: [atLabel, atApex, unreachable] });
    const recordOf = (domain: string) => shown.domains.find((d) => d.domain === domain)!.txtRecord;

    txt.publish(`_agent-gateway.${atLabel}`, 'agent-gateway-verification=not-the-token');
    txt.publish(`_agent-gateway.${atLabel}`, 'v=spf1 -all');
    const wrong = await verify(admin.jwt, organization.id, atLabel).expect(400);
    expect(wrong.body).toMatchObject({
      code: 'domain_not_verified',
      message: expect.stringContaining(`No TXT record "${recordOf(atLabel).value}" was found at _agent-gateway.${atLabel}`),
    });
    // Where DNS cannot be changed, the message names the operator's way round it.
    expect(wrong.body.message).toContain(`an operator of this deployment can verify it: npm run cli -- verify-domain --organization ${organization.id} --domain ${atLabel}`);

    txt.publishRecord(recordOf(atLabel));
    const ok = await verify(admin.jwt, organization.id, atLabel.toUpperCase()).expect(200);
    expect(ok.body).toMatchObject({ domain: atLabel, status: 'verified', verifiedAt: expect.any(String) });
    await verify(admin.jwt, organization.id, atLabel).expect(200);

    txt.publish(atApex, recordOf(atApex).value);
    await verify(admin.jwt, organization.id, atApex).expect(200);

    txt.fail(`_agent-gateway.${unreachable}`, 'ESERVFAIL');
    const failed = await verify(admin.jwt, organization.id, unreachable).expect(400);
    expect(failed.body).toMatchObject({ code: 'dns_lookup_failed', message: expect.stringContaining('ESERVFAIL') });

    const notClaimed = await verify(admin.jwt, organization.id, testDomain()).expect(404);
    expect(notClaimed.body.code).toBe('domain_not_claimed');
    await verify(admin.jwt, organization.id, 'not a domain').expect(400);

    const states = (await get(admin.jwt, organization.id)).body.domains.map((d: { domain: string; status: string }) => [d.domain, d.status]);
    expect(new Map(states)).toEqual(new Map([[atLabel, 'verified'], [atApex, 'verified'], [unreachable, 'pending']]));
    const verifiedEvents = (await auditOf(organization.id)).filter((e) => e.action === 'identity_provider.domain_verified');
    expect(verifiedEvents.map((e) => e.metadata)).toEqual([
      { domain: atLabel, method: 'dns' },
      { domain: atApex, method: 'dns' },
    ]);
  });

  (onPostgres ? it : it.skip)('the operator verifies a domain with verify-domain beside the running service', async () => {
    const { organization, admin } = await createTeam(t);
    const domain = testDomain();
    await connectIdentityProvider(t, organization.id, admin.jwt, { issuer: idp.issuer, emailDomains: [domain] });
    const usage = await cliInProcess(['verify-domain', '--organization', organization.id]);
    expect(usage).toMatchObject({ code: EXIT.usage, stderr: expect.stringContaining('verify-domain needs --organization and --domain') });

    // The real command line, in its own process, on the service's PostgreSQL while the service runs.
    const dataDir = mkdtempSync(join(tmpdir(), 'ag-cli-'));
    const env = { LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: t.config.databaseUrl! };
    try {
      const done = await runCliProcess(['verify-domain', '--organization', organization.id, '--domain', domain.toUpperCase()], env);
      expect(done).toMatchObject({ code: EXIT.ok, stdout: expect.stringContaining(`${domain} is verified for organization ${organization.id}`) });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect((await get(admin.jwt, organization.id).expect(200)).body.domains[0]).toMatchObject({ domain, status: 'verified' });
    const events = (await auditOf(organization.id)).filter((e) => e.action === 'identity_provider.domain_verified');
    expect(events.map((e) => e.metadata)).toEqual([{ domain, method: 'operator' }]);
  });

  it('disconnecting deletes the settings and the domain claims, audited', async () => {
    const { organization, admin } = await createTeam(t);
    const domain = testDomain();
    await connectIdentityProvider(t, organization.id, admin.jwt, { issuer: idp.issuer, emailDomains: [domain] });
    await verifyDomainForTests(t, organization.id, domain);
    await request(t.baseUrl).delete(identityProviderPath(organization.id)).set('Authorization', `Bearer ${admin.jwt}`).expect(204);
    await get(admin.jwt, organization.id).expect(404);
    await request(t.baseUrl).delete(identityProviderPath(organization.id)).set('Authorization', `Bearer ${admin.jwt}`).expect(404);
    expect(await t.dataSource.query('SELECT domain FROM identity_provider_domains WHERE domain = $1', [domain])).toEqual([]);
    const removed = (await auditOf(organization.id)).filter((e) => e.action === 'identity_provider.removed');
    expect(removed.map((e) => e.metadata)).toEqual([{ issuer: idp.issuer, clientId: 'gateway-test', domainsRemoved: [domain] }]);
  });

  it('only an admin session of the organisation reads or changes the settings', async () => {
    const { organization, admin, member, outsider } = await createTeam(t);
    const domain = testDomain();
    await connectIdentityProvider(t, organization.id, admin.jwt, { issuer: idp.issuer, emailDomains: [domain] });
    const key = await createApiKey(t.dataSource, organization.id, ['projects:read', 'projects:write', 'members:read', 'audit:read', 'service_keys:read', 'service_keys:write']);
    const body = identityProviderSettings({ issuer: idp.issuer });
    for (const [who, jwt, status] of [
      ['member', member.jwt, 403],
      ['rk_ key', key.key, 403],
      ['admin of another organisation', outsider.jwt, 404],
    ] as const) {
      expect({ who, get: (await get(jwt, organization.id)).status }).toEqual({ who, get: status });
      expect({ who, put: (await put(jwt, organization.id, body)).status }).toEqual({ who, put: status });
      expect({ who, verify: (await verify(jwt, organization.id, domain)).status }).toEqual({ who, verify: status });
      const del = await request(t.baseUrl).delete(identityProviderPath(organization.id)).set('Authorization', `Bearer ${jwt}`);
      expect({ who, delete: del.status }).toEqual({ who, delete: status });
    }
    await request(t.baseUrl).get(identityProviderPath(organization.id)).expect(401);
    expect((await get(admin.jwt, organization.id).expect(200)).body.clientId).toBe('gateway-test');
  });

  it('acceptIdJag is refused until an admin has signed in through the identity provider; a new issuer switches it off', async () => {
    const { organization, admin } = await createTeam(t);
    const project = await createProject(t.dataSource, organization.id);
    await connectIdentityProvider(t, organization.id, admin.jwt, { issuer: idp.issuer });
    const early = await put(admin.jwt, organization.id, identityProviderSettings({ issuer: idp.issuer, acceptIdJag: true })).expect(409);
    expect(early.body).toMatchObject({
      code: 'id_jag_needs_admin_sign_in',
      message: expect.stringContaining('only after an admin of this organisation has signed in through this identity provider'),
    });

    await t.app.get(IdentityProviderDirectory).recordAdminSignIn(organization.id, idp.issuer);
    // The organisation's own clients (SPEC §10: made-up client ids are refused).
    const aiClient = (await createOrganizationClient(t, organization.id, admin.jwt, 'AI client')).client_id;
    const undecided = (await createOrganizationClient(t, organization.id, admin.jwt, 'Undecided')).client_id;
    const on = await put(admin.jwt, organization.id, {
      issuer: idp.issuer,
      clientId: 'gateway-test',
      acceptIdJag: true,
      idJagClients: [
        { clientId: aiClient, projectId: project.id },
        { clientId: undecided, projectId: null },
      ],
    }).expect(200);
    expect(on.body).toMatchObject({ acceptIdJag: true, adminSignedInAt: expect.any(String), idJagClients: [{ clientId: aiClient, projectId: project.id }, { clientId: undecided, projectId: null }] });

    const second = fakeIdp(`second-${randomUUID().slice(0, 8)}`);
    const moved = await put(admin.jwt, organization.id, identityProviderSettings({ issuer: second, acceptIdJag: true })).expect(409);
    expect(moved.body.message).toContain('through the new issuer');
    const newIssuer = await put(admin.jwt, organization.id, identityProviderSettings({ issuer: second })).expect(200);
    expect(newIssuer.body).toMatchObject({ issuer: second, acceptIdJag: false, adminSignedInAt: null });
    await put(admin.jwt, organization.id, identityProviderSettings({ issuer: second, acceptIdJag: true })).expect(409);
    // A new issuer needs its own client secret.
    const noSecret = await put(admin.jwt, organization.id, { issuer: idp.issuer, clientId: 'gateway-test' }).expect(400);
    expect(noSecret.body).toMatchObject({ code: 'client_secret_required', message: 'clientSecret is required when the issuer changes' });
  });
});
