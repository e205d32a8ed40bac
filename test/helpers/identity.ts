/**
 * Helpers for tests that need an organisation connected to an identity provider.
 *
 * The test app must allow a loopback IdP: `startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' })`.
 *
 * - `connectIdentityProvider(t, orgId, adminJwt, settings)`: `PUT /api/organizations/:orgId/identity-provider`
 *   as that admin (a session JWT: `sessionFor(t, userId)` or a signup's `accessToken`), with
 *   defaults for what `settings` leaves out (clientId `gateway-test`, a client secret, no domains,
 *   defaultRole member); expects 200 and answers the settings as shown (`IdentityProviderView`).
 *   First, as an admin does, it reads the organisation's own redirect URI and adds it to the
 *   client at the issuer when that is a test IdP of this process (`allowRedirectUri`).
 *   The issuer's discovery document and key set are fetched when saved, so `settings.issuer` must
 *   be a running IdP (`startTestIdp()` of `./test-idp`).
 * - `verifyDomainForTests(t, orgId, domain)`: marks a domain the organisation claims as verified,
 *   the operator's way (`verify-domain` on the command line calls the same service); no DNS.
 * - `connectWithVerifiedDomains(t, orgId, adminJwt, settings)`: both at once: every domain of
 *   `settings.emailDomains` ends up verified.
 * - `FakeTxtRecords`: a DNS stand-in for the REST verification route; pass `records.provider` in
 *   `startTestApp(env, { providers: [records.provider] })`, then `records.publish(name, value)`.
 * - `insertIdentityProvider(t, orgId, options)`: settings written straight through the identity
 *   library's directory, with no IdP running and no checks (a precondition for tests of access
 *   rules; a sign-in needs a real IdP and `connectIdentityProvider`).
 * - `redirectUriFor(t, orgId, adminJwt)`: the organisation's own redirect URI
 *   (`GET …/identity-provider/redirect-uri`), to register at the test IdP before connecting it.
 * - `testDomain()`: a fresh domain name per call (`sso-1a2b3c4d.example.com`), so tests never
 *   share a claim (a verified domain belongs to one organisation in the whole database).
 * - `startSingleSignOn(baseUrl, email)`: the start as the browser does it; `signInThroughIdp(baseUrl,
 *   idp, email, sub)`: the whole sign-in through a test IdP, answering the session JWT.
 */
import { randomUUID } from 'node:crypto';
import type { Provider } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { DOMAIN_TXT_RESOLVER, IdentityProviderDirectory, IdentityProviderSettings, type ClaimedDomainView, type IdentityProviderInput, type IdentityProviderView } from '@app/identity';
import type { TestApp } from './test-app';
import { runningTestIdp, type TestIdp } from './test-idp';

export const TEST_IDP_CLIENT_ID = 'gateway-test';
export const TEST_IDP_CLIENT_SECRET = 'gateway-test-client-secret';

export const identityProviderPath = (orgId: string) => `/api/organizations/${orgId}/identity-provider`;

/** A fresh domain name for one test (`sso-<8 hex>.example.com`). */
export function testDomain(prefix = 'sso'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}.example.com`;
}

/** The settings `connectIdentityProvider` sends: `settings` over the defaults. */
export function identityProviderSettings(settings: Partial<IdentityProviderInput> & { issuer: string }): IdentityProviderInput {
  return {
    clientId: TEST_IDP_CLIENT_ID,
    clientSecret: TEST_IDP_CLIENT_SECRET,
    emailDomains: [],
    defaultRole: 'member',
    ...settings,
  };
}

/** Connects (or replaces) the organisation's IdP over REST as an admin; expects 200. */
export async function connectIdentityProvider(
  t: Pick<TestApp, 'baseUrl'>,
  orgId: string,
  adminJwt: string,
  settings: Partial<IdentityProviderInput> & { issuer: string },
): Promise<IdentityProviderView> {
  const settingsSent = identityProviderSettings(settings);
  await runningTestIdp(settings.issuer)?.allowRedirectUri(settingsSent.clientId, await redirectUriFor(t, orgId, adminJwt));
  const res = await request(t.baseUrl)
    .put(identityProviderPath(orgId))
    .set('Authorization', `Bearer ${adminJwt}`)
    .send(settingsSent);
  if (res.status !== 200) throw new Error(`PUT identity-provider answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as IdentityProviderView;
}

/** The organisation's own redirect URI (made on first use), as an admin reads it before connecting an IdP. */
export async function redirectUriFor(t: Pick<TestApp, 'baseUrl'>, orgId: string, adminJwt: string): Promise<string> {
  const res = await request(t.baseUrl).get(`${identityProviderPath(orgId)}/redirect-uri`).set('Authorization', `Bearer ${adminJwt}`);
  if (res.status !== 200) throw new Error(`GET identity-provider/redirect-uri answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body as { redirectUri: string }).redirectUri;
}

/** Marks a claimed domain verified as the operator's command line does (no DNS); answers the claim. */
export function verifyDomainForTests(t: Pick<TestApp, 'app'>, orgId: string, domain: string): Promise<ClaimedDomainView> {
  return t.app.get(IdentityProviderSettings).verifyDomainAsOperator(orgId, domain, { actorType: 'cli', actorId: null });
}

/** Connects the IdP and verifies every domain of `settings.emailDomains`; answers the settings as shown afterwards. */
export async function connectWithVerifiedDomains(
  t: Pick<TestApp, 'app' | 'baseUrl'>,
  orgId: string,
  adminJwt: string,
  settings: Partial<IdentityProviderInput> & { issuer: string; emailDomains: string[] },
): Promise<IdentityProviderView> {
  await connectIdentityProvider(t, orgId, adminJwt, settings);
  for (const domain of settings.emailDomains) await verifyDomainForTests(t, orgId, domain);
  return (await t.app.get(IdentityProviderSettings).get(orgId))!;
}

/**
 * Settings written straight to the database (no discovery fetch, no checks, no audit event):
 * `issuer` defaults to `https://idp.invalid`; `verifiedDomains` are claimed and verified,
 * `pendingDomains` claimed only. Replaces any settings and claims the organisation had.
 */
export async function insertIdentityProvider(
  t: Pick<TestApp, 'app'>,
  orgId: string,
  options: {
    issuer?: string;
    clientId?: string;
    requireSso?: boolean;
    acceptIdJag?: boolean;
    adminSignedIn?: boolean;
    verifiedDomains?: string[];
    pendingDomains?: string[];
  } = {},
): Promise<void> {
  const directory = t.app.get(IdentityProviderDirectory);
  await t.app.get(DataSource).transaction(async (em) => {
    await directory.save(
      {
        organizationId: orgId,
        issuer: options.issuer ?? 'https://idp.invalid',
        clientId: options.clientId ?? TEST_IDP_CLIENT_ID,
        clientSecret: TEST_IDP_CLIENT_SECRET,
        defaultRole: 'member',
        requireSso: options.requireSso ?? false,
        acceptIdJag: options.acceptIdJag ?? false,
        adminSignedInAt: options.adminSignedIn || options.acceptIdJag ? new Date() : null,
      },
      em,
    );
    const verified = options.verifiedDomains ?? [];
    await directory.replaceDomains(orgId, [...verified, ...(options.pendingDomains ?? [])], () => randomUUID(), em);
    for (const domain of verified) await directory.markVerified(orgId, domain, em);
  });
}

/**
 * TXT records the gateway's domain verification sees instead of DNS. A name without records
 * answers ENOTFOUND, as DNS would; `fail(name, code)` makes a look-up fail with that code.
 */
export class FakeTxtRecords {
  private readonly records = new Map<string, string[][]>();
  private readonly failures = new Map<string, string>();
  readonly lookups: string[] = [];

  /** The provider to register: `startTestApp(env, { providers: [records.provider] })`. */
  get provider(): Provider {
    return { provide: DOMAIN_TXT_RESOLVER, useValue: (name: string) => this.resolve(name) };
  }

  publish(name: string, value: string): void {
    this.records.set(name, [...(this.records.get(name) ?? []), [value]]);
  }

  /** Publishes the record GET `…/identity-provider` shows for a domain. */
  publishRecord(record: { name: string; value: string }): void {
    this.publish(record.name, record.value);
  }

  fail(name: string, code: string): void {
    this.failures.set(name, code);
  }

  private async resolve(name: string): Promise<string[][]> {
    this.lookups.push(name);
    const failure = this.failures.get(name);
    if (failure) throw Object.assign(new Error(`queryTxt ${failure} ${name}`), { code: failure });
    const found = this.records.get(name);
    if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found;
  }
}

/**
 * Starts single sign-on as the browser does (SPEC §10): `GET /auth/sso/start?email=…&next=…` (the
 * start page, its CSRF cookie and token), then the same-site `POST /auth/sso/start` with them.
 * Answers the POST's response, unfollowed (303 to the IdP with the `ag_sso_state` cookie, or back
 * to the sign-in page); `headers` are added to the POST (say, an `x-forwarded-for`).
 */
export async function startSingleSignOn(baseUrl: string, email: string, options: { next?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const query = new URLSearchParams({ email, ...(options.next ? { next: options.next } : {}) });
  const page = await fetch(`${baseUrl}/auth/sso/start?${query.toString()}`, { redirect: 'manual' });
  if (page.status !== 200) throw new Error(`GET /auth/sso/start answered ${page.status}`);
  const token = /name="sso_csrf_token" value="([^"]+)"/.exec(await page.text())?.[1];
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith('ag_sso_start_csrf='))?.split(';')[0];
  if (!token || !cookie) throw new Error('the start page carries no CSRF token');
  return fetch(`${baseUrl}/auth/sso/start`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'sec-fetch-site': 'same-origin', ...(options.headers ?? {}) },
    body: new URLSearchParams({ email, next: options.next ?? '/', sso_csrf_token: token }).toString(),
  });
}

/**
 * A whole single sign-on without a browser: the start (`startSingleSignOn`), the IdP's sign-in as
 * `sub` (`signInWithoutBrowser` of the test IdP), and the callback with the state cookie. Answers
 * the session JWT the callback set (the `ag_session` cookie's value); throws when there is none.
 */
export async function signInThroughIdp(baseUrl: string, idp: Pick<TestIdp, 'signInWithoutBrowser'>, email: string, sub: string): Promise<string> {
  const started = await startSingleSignOn(baseUrl, email);
  const state = started.headers.getSetCookie().find((c) => c.startsWith('ag_sso_state='))?.split(';')[0];
  const location = started.headers.get('location');
  if (started.status !== 303 || !state || !location) throw new Error(`POST /auth/sso/start answered ${started.status}`);
  const callback = await idp.signInWithoutBrowser(location, sub);
  const res = await fetch(callback, { redirect: 'manual', headers: { cookie: state } });
  const session = res.headers.getSetCookie().find((c) => /^ag_session=[^;]/.test(c))?.split(';')[0];
  if (!session) throw new Error(`the callback answered ${res.status} without a session`);
  return session.slice('ag_session='.length);
}
