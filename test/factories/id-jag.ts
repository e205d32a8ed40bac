import { createHash, randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { IdentityLinkDirectory, IdentityProviderDirectory } from '@app/identity';
import { connectIdentityProvider } from '../helpers/identity';
import type { TestApp } from '../helpers/test-app';
import { ID_JAG_TYP, ID_JAG_TYPE, ID_TOKEN_TYPE, TestIdp, TOKEN_EXCHANGE_GRANT } from '../helpers/test-idp';
import { addMember, createOrganization, createProject, createUser } from './index';
import { tokenRequest } from './oauth';
import { sessionFor } from './rest';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Where the AI client's own sign-in at the IdP comes back (never opened: the test reads the code from the redirect). */
const AI_CLIENT_REDIRECT = 'http://127.0.0.1:9/ai-client/callback';

export const basicAuth = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** An organisation connected to the test IdP, accepting its ID-JAGs for one AI client on one project. */
export interface Enterprise {
  organization: { id: string; name: string };
  project: { id: string; name: string; organizationId: string };
  admin: { id: string; email: string };
  /** A member linked to the IdP account `sub`. */
  person: { id: string; email: string; sub: string };
  /** The IdP's `tenant` for this organisation (its ID-JAGs carry it); null: a single-tenant issuer. */
  tenant: string | null;
  /** The AI client at the gateway: an organisation client an admin made (SPEC §10). */
  client: OrganizationTestClient;
  /** The same AI client at the IdP (its SSO and token-exchange client). */
  idpClient: { clientId: string; clientSecret: string };
}

/**
 * Sets up an organisation for Enterprise-Managed Authorization against the test IdP: its IdP
 * settings over REST (issuer, then `acceptIdJag` and the client's project once an admin's SSO
 * sign-in is recorded with `recordAdminSignIn`, what the single sign-on callback records), a
 * member linked to an IdP account, and the AI client at both ends (at the gateway, an
 * organisation client the admin makes over REST).
 * Each organisation gets its own `tenant` of the one test IdP unless `tenant` is given (null: none,
 * the issuer then stands for one organisation only).
 */
export async function setUpEnterprise(
  t: TestApp,
  idp: TestIdp,
  options: {
    tenant?: string | null;
    acceptIdJag?: boolean;
    adminSignedIn?: boolean;
    projectForClient?: 'project' | 'null' | 'absent';
    /** Write the settings through the identity directory instead of REST (no fetch of the IdP's documents). */
    direct?: boolean;
  } = {},
): Promise<Enterprise> {
  const organization = await createOrganization(t.dataSource);
  const project = await createProject(t.dataSource, organization.id);
  const admin = await createUser(t.dataSource);
  await addMember(t.dataSource, organization.id, admin.id, 'admin');
  const user = await createUser(t.dataSource);
  await addMember(t.dataSource, organization.id, user.id, 'member');
  const sub = `sub-${randomUUID()}`;
  const tenant = options.tenant === undefined ? `tenant-${randomUUID().slice(0, 8)}` : options.tenant;
  idp.setAccount(sub, { email: user.email, email_verified: true, ...(tenant ? { tenant } : {}) });

  const client = await createOrganizationClient(t, organization.id, await sessionFor(t, admin.id), 'Enterprise AI client');
  const idpClient = { clientId: `ai-${randomUUID()}`, clientSecret: `secret-${randomUUID()}` };
  await idp.addClient({ ...idpClient, redirectUris: [AI_CLIENT_REDIRECT], idJagClientId: client.client_id });

  const which = options.projectForClient ?? 'project';
  const idJagClients = which === 'absent' ? [] : [{ clientId: client.client_id, projectId: which === 'project' ? project.id : null }];
  const directory = t.app.get(IdentityProviderDirectory);
  const adminSignedIn = options.adminSignedIn ?? true;
  if (options.direct) {
    // Straight through the directory: no fetch of the IdP's discovery document and key set.
    await t.dataSource.transaction((em) =>
      directory.save(
        { organizationId: organization.id, issuer: idp.issuer, clientId: 'gateway-test', clientSecret: 'sso-secret', defaultRole: 'member', acceptIdJag: options.acceptIdJag ?? true, idJagClients },
        em,
      ),
    );
    if (adminSignedIn) await directory.recordAdminSignIn(organization.id, idp.issuer);
  } else {
    // As an admin does it: connect the IdP, sign in through it once (recorded as the SSO callback
    // records it), then switch ID-JAGs on with the client's project.
    const adminJwt = await sessionFor(t, admin.id);
    await connectIdentityProvider(t, organization.id, adminJwt, { issuer: idp.issuer, acceptIdJag: false, idJagClients });
    if (adminSignedIn) await directory.recordAdminSignIn(organization.id, idp.issuer);
    if (adminSignedIn && (options.acceptIdJag ?? true)) {
      await connectIdentityProvider(t, organization.id, adminJwt, { issuer: idp.issuer, acceptIdJag: true, idJagClients });
    } else if (options.acceptIdJag ?? true) {
      // REST refuses acceptIdJag before an admin's sign-in: the row is set as an older save would have left it.
      await t.dataSource.transaction((em) => directory.save({ organizationId: organization.id, acceptIdJag: true }, em));
    }
  }
  await t.dataSource.transaction(async (em) => {
    // The IdP's tenant is learnt from its ID token at the SSO sign-in; written here directly.
    if (tenant) await directory.save({ organizationId: organization.id, tenant }, em);
    await t.app.get(IdentityLinkDirectory).link(user.id, idp.issuer, sub, em);
  });
  return { organization, project, admin, person: { id: user.id, email: user.email, sub }, tenant, client, idpClient };
}

/** An organisation client as the tests use it: its client_id and secret (the token endpoint's names). */
export interface OrganizationTestClient {
  client_id: string;
  client_secret: string;
  client_name: string;
}

/** Makes an organisation client over REST as an admin (SPEC §10): `POST /api/organizations/:orgId/oauth-clients`. */
export async function createOrganizationClient(t: TestApp, organizationId: string, adminJwt: string, clientName = 'Enterprise AI client'): Promise<OrganizationTestClient> {
  const res = await request(t.baseUrl).post(`/api/organizations/${organizationId}/oauth-clients`).auth(adminJwt, { type: 'bearer' }).send({ clientName });
  if (res.status !== 201) throw new Error(`POST oauth-clients answered ${res.status}: ${JSON.stringify(res.body)}`);
  return { client_id: res.body.clientId as string, client_secret: res.body.clientSecret as string, client_name: clientName };
}

/** The AI client's single sign-on at the IdP (code flow with PKCE): the person's ID token. */
export async function idTokenFromIdp(idp: TestIdp, e: Pick<Enterprise, 'idpClient' | 'person'>): Promise<string> {
  const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(discovery.authorization_endpoint);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: e.idpClient.clientId,
    redirect_uri: AI_CLIENT_REDIRECT,
    scope: 'openid email',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const back = new URL(await idp.signInWithoutBrowser(authorize.href, e.person.sub));
  const res = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(e.idpClient.clientId, e.idpClient.clientSecret) },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: AI_CLIENT_REDIRECT, code_verifier: verifier }),
  });
  if (res.status !== 200) throw new Error(`IdP code exchange failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id_token: string }).id_token;
}

/** RFC 8693 token exchange at the IdP: an ID token for an ID-JAG naming the gateway. */
export async function idJagFromIdp(
  idp: TestIdp,
  t: TestApp,
  e: Pick<Enterprise, 'idpClient'>,
  idToken: string,
  scope?: string,
): Promise<string> {
  const discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
  const res = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(e.idpClient.clientId, e.idpClient.clientSecret) },
    body: new URLSearchParams({
      grant_type: TOKEN_EXCHANGE_GRANT,
      requested_token_type: ID_JAG_TYPE,
      subject_token_type: ID_TOKEN_TYPE,
      subject_token: idToken,
      audience: t.config.issuer,
      resource: t.config.mcpResourceUrl,
      ...(scope ? { scope } : {}),
    }),
  });
  if (res.status !== 200) throw new Error(`IdP token exchange failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The claims of an ID-JAG the test IdP would issue for this person and client (for `idp.signJwt`). */
export function idJagClaims(idp: TestIdp, t: TestApp, e: Pick<Enterprise, 'person' | 'client' | 'tenant'>, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: idp.issuer,
    sub: e.person.sub,
    aud: t.config.issuer,
    client_id: e.client.client_id,
    jti: randomUUID(),
    iat: now,
    exp: now + 300,
    resource: t.config.mcpResourceUrl,
    scope: 'project:read tasks:read tasks:write',
    ...(e.tenant ? { tenant: e.tenant } : {}),
    ...overrides,
  };
}

/** An ID-JAG signed by the test IdP's current key with these claims (header `typ` oauth-id-jag+jwt unless overridden). */
export function signedIdJag(idp: TestIdp, claims: Record<string, unknown>, header: Record<string, unknown> = {}, key?: Parameters<TestIdp['signJwt']>[2]): Promise<string> {
  return idp.signJwt(claims, { typ: ID_JAG_TYP, ...header }, key);
}

/** The jwt-bearer grant at the gateway's token endpoint, the client authenticating with HTTP Basic. */
export function tradeIdJag(t: TestApp, client: { client_id: string; client_secret?: string }, assertion: string, extra: Record<string, string> = {}) {
  return tokenRequest(
    t.baseUrl,
    { grant_type: JWT_BEARER, assertion, ...extra },
    client.client_secret ? { authorization: basicAuth(client.client_id, client.client_secret) } : {},
  );
}
