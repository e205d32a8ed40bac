import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';
import { API_KEY_PERMISSION_NAMES, ApiKeyPermission, generateToken, hashToken } from '@app/credential-store';
import { addMember, createAgentToken, createOrganization, createProject } from './factories';
import { createApiKey, createPersonWithoutPassword, createTeam } from './factories/rest';
import { insertIdentityProvider } from './helpers/identity';
import { mountedRoutes } from './helpers/routes';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * The access matrix of SPEC §6 over every REST route the running app serves (the route list
 * comes from the router, so a new `@RestAuth` route without a row fails the test): who gets
 * which status.
 * Each cell is a real request with fresh resources, so a success in one cell never changes
 * another. Columns:
 *   admin      session of an admin of the organisation
 *   member     session of a member (role member) of the organisation
 *   outsider   session of an admin of another organisation
 *   rkWith     rk_ key of the organisation holding the route's permission (every permission
 *              when the route has none)
 *   rkWithout  rk_ key of the organisation holding every other permission
 *   rkOther    rk_ key of another organisation holding every permission
 *   dga        a live agent token of the organisation
 *   none       no credential
 *   unknown    a credential of no known form
 *   rkUnknown  a well-formed rk_ key that does not exist
 */
const ACTORS = ['admin', 'member', 'outsider', 'rkWith', 'rkWithout', 'rkOther', 'dga', 'none', 'unknown', 'rkUnknown'] as const;
type Actor = (typeof ACTORS)[number];

interface Team {
  organization: { id: string };
  other: { id: string };
  admin: { id: string; jwt: string; email: string; password: string };
  member: { id: string; jwt: string };
  outsider: { id: string; jwt: string };
}

interface Call {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  body?: object;
}

/** A fresh organisation client of the team's organisation, made by its admin over REST (SPEC §10). */
async function organizationClient(t: TestApp, team: Team): Promise<string> {
  const made = await request(t.baseUrl).post(`${org(team)}/oauth-clients`).set('Authorization', `Bearer ${team.admin.jwt}`).send({ clientName: 'Matrix client' }).expect(201);
  return (made.body as { clientId: string }).clientId;
}

interface Row {
  route: string;
  permission?: ApiKeyPermission;
  /** Builds the request with fresh resources for one cell. */
  call: (t: TestApp, team: Team) => Promise<Call>;
  /** Statuses in ACTORS order. */
  expected: string;
}

const org = (team: Team) => `/api/organizations/${team.organization.id}`;
const serviceKeys = (team: Team) => `${org(team)}/agent-service-keys`;

const ROWS: Row[] = [
  {
    route: 'POST /api/auth/signup',
    call: async () => ({
      method: 'post',
      path: '/api/auth/signup',
      body: { email: `m-${randomUUID()}@example.test`, password: 'correct horse battery', name: 'M', organizationName: 'O' },
    }),
    //        admin member outsider rkWith rkWithout rkOther dga none unknown rkUnknown
    expected: '201   201    201      201    201       201     201 201  201     201',
  },
  {
    route: 'POST /api/auth/login',
    call: async (_t, team) => ({ method: 'post', path: '/api/auth/login', body: { email: team.admin.email, password: team.admin.password } }),
    expected: '200   200    200      200    200       200     200 200  200     200',
  },
  { route: 'GET /api/me', call: async () => ({ method: 'get', path: '/api/me' }), expected: '200 200 200 403 403 403 403 401 401 401' },
  { route: 'GET /api/auth/sessions', call: async () => ({ method: 'get', path: '/api/auth/sessions' }), expected: '200 200 200 403 403 403 403 401 401 401' },
  { route: 'GET /api/permissions', call: async () => ({ method: 'get', path: '/api/permissions' }), expected: '200 200 200 200 200 200 403 401 401 401' },
  { route: 'GET /api/organizations', call: async () => ({ method: 'get', path: '/api/organizations' }), expected: '200 200 200 403 403 403 403 401 401 401' },
  {
    route: 'POST /api/organizations',
    call: async () => ({ method: 'post', path: '/api/organizations', body: { name: 'New org' } }),
    expected: '201 201 201 403 403 403 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId',
    call: async (_t, team) => ({ method: 'get', path: org(team) }),
    expected: '200 200 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/projects',
    permission: 'projects:read',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/projects` }),
    expected: '200 200 404 200 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/projects',
    permission: 'projects:write',
    call: async (_t, team) => ({ method: 'post', path: `${org(team)}/projects`, body: { name: 'P' } }),
    expected: '201 403 404 201 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/projects/:projectId',
    permission: 'projects:read',
    call: async (t, team) => ({ method: 'get', path: `${org(team)}/projects/${(await createProject(t.dataSource, team.organization.id)).id}` }),
    expected: '200 200 404 200 403 404 403 401 401 401',
  },
  {
    route: 'PATCH /api/organizations/:orgId/projects/:projectId',
    permission: 'projects:write',
    call: async (t, team) => ({ method: 'patch', path: `${org(team)}/projects/${(await createProject(t.dataSource, team.organization.id)).id}`, body: { name: 'Renamed' } }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/projects/:projectId',
    permission: 'projects:write',
    call: async (t, team) => ({ method: 'delete', path: `${org(team)}/projects/${(await createProject(t.dataSource, team.organization.id)).id}` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/members',
    permission: 'members:read',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/members` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/members',
    call: async (t, team) => ({ method: 'post', path: `${org(team)}/members`, body: { email: (await createPersonWithoutPassword(t.dataSource)).email, role: 'member' } }),
    expected: '201 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/members/:userId/reset-link',
    call: async (t, team) => ({ method: 'post', path: `${org(team)}/members/${await freshMember(t, team)}/reset-link` }),
    expected: '201 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/invitations',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/invitations` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/invitations/:invitationId',
    call: async (t, team) => ({ method: 'delete', path: `${org(team)}/invitations/${(await freshInvitation(t, team.organization.id)).id}` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/invitations/accept',
    // An invitation into an organisation nobody of the team belongs to yet.
    call: async (t) => ({ method: 'post', path: '/api/invitations/accept', body: { token: (await freshInvitation(t, (await createOrganization(t.dataSource)).id)).token } }),
    expected: '200 200 200 403 403 403 403 401 401 401',
  },
  { route: 'POST /api/auth/logout', call: async () => ({ method: 'post', path: '/api/auth/logout' }), expected: '204 204 204 403 403 403 403 401 401 401' },
  { route: 'POST /api/auth/logout-all', call: async () => ({ method: 'post', path: '/api/auth/logout-all' }), expected: '204 204 204 403 403 403 403 401 401 401' },
  {
    route: 'POST /api/auth/reauthenticate',
    // The admin's password: the admin's session is refreshed (204); the others' sessions are not theirs to prove (401).
    call: async (_t, team) => ({ method: 'post', path: '/api/auth/reauthenticate', body: { password: team.admin.password } }),
    expected: '204 401 401 403 403 403 403 401 401 401',
  },
  {
    route: 'POST /api/auth/password',
    // A wrong current password, so no cell changes a password (and ends the team's sessions): a session gets 400.
    call: async () => ({ method: 'post', path: '/api/auth/password', body: { currentPassword: 'not the password', newPassword: 'a brand new long password' } }),
    expected: '400 400 400 403 403 403 403 401 401 401',
  },
  {
    route: 'PATCH /api/organizations/:orgId/members/:userId',
    call: async (t, team) => ({ method: 'patch', path: `${org(team)}/members/${await freshMember(t, team)}`, body: { role: 'admin' } }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/members/:userId',
    call: async (t, team) => ({ method: 'delete', path: `${org(team)}/members/${await freshMember(t, team)}` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/client-policy',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/client-policy` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'PUT /api/organizations/:orgId/client-policy',
    call: async (_t, team) => ({ method: 'put', path: `${org(team)}/client-policy`, body: { mode: 'any' } }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/policy',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/policy` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'PUT /api/organizations/:orgId/policy',
    // From the current version, so the admin's cell saves whatever the other cells did.
    call: async (t, team) => {
      const current = await request(t.baseUrl).get(`${org(team)}/policy`).set('Authorization', `Bearer ${team.admin.jwt}`).expect(200);
      return { method: 'put', path: `${org(team)}/policy`, body: { version: (current.body as { version: number }).version, rules: [] } };
    },
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/policy/evaluate',
    call: async (t, team) => ({
      method: 'post',
      path: `${org(team)}/policy/evaluate`,
      body: { call: { projectId: (await createProject(t.dataSource, team.organization.id)).id, tool: 'get_project', args: {}, credentialKind: 'derived' } },
    }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/audit-sinks',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/audit-sinks` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/audit-sinks',
    // A public address literal: saved without a name to resolve.
    call: async (_t, team) => ({ method: 'post', path: `${org(team)}/audit-sinks`, body: { kind: 'https', url: 'https://93.184.215.14/intake' } }),
    expected: '201 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/audit-sinks/:id',
    call: async (t, team) => {
      const made = await request(t.baseUrl)
        .post(`${org(team)}/audit-sinks`)
        .set('Authorization', `Bearer ${team.admin.jwt}`)
        .send({ kind: 'https', url: 'https://93.184.215.14/intake' })
        .expect(201);
      return { method: 'delete', path: `${org(team)}/audit-sinks/${(made.body as { id: string }).id}` };
    },
    expected: '204 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/approvals',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/approvals` }),
    expected: '200 200 404 403 403 404 403 401 401 401',
  },
  {
    // The member is neither an approver of the `admins` rule nor the requester: not found.
    route: 'GET /api/organizations/:orgId/approvals/:id',
    call: async (t, team) => ({ method: 'get', path: `${org(team)}/approvals/${await freshApproval(t, team)}` }),
    expected: '200 404 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/approvals/:id/decision',
    call: async (t, team) => ({ method: 'post', path: `${org(team)}/approvals/${await freshApproval(t, team)}/decision`, body: { decision: 'deny' } }),
    expected: '200 404 404 403 403 404 403 401 401 401',
  },
  {
    route: 'PUT /api/organizations/:orgId/approval-webhook',
    // A public address literal: saved without a name to resolve.
    call: async (_t, team) => ({ method: 'put', path: `${org(team)}/approval-webhook`, body: { url: 'https://93.184.215.14/hook' } }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/approval-webhook',
    call: async (t, team) => {
      await request(t.baseUrl).put(`${org(team)}/approval-webhook`).set('Authorization', `Bearer ${team.admin.jwt}`).send({ url: 'https://93.184.215.14/hook' }).expect(200);
      return { method: 'delete', path: `${org(team)}/approval-webhook` };
    },
    expected: '204 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/audit-retention',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/audit-retention` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'PUT /api/organizations/:orgId/audit-retention',
    call: async (_t, team) => ({ method: 'put', path: `${org(team)}/audit-retention`, body: { retentionDays: 730 } }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/oauth-clients',
    call: async (_t, team) => ({ method: 'post', path: `${org(team)}/oauth-clients`, body: { clientName: 'Enterprise AI client' } }),
    expected: '201 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/oauth-clients',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/oauth-clients` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/oauth-clients/:clientId',
    call: async (t, team) => ({ method: 'get', path: `${org(team)}/oauth-clients/${await organizationClient(t, team)}` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/oauth-clients/:clientId/rotate',
    call: async (t, team) => ({ method: 'post', path: `${org(team)}/oauth-clients/${await organizationClient(t, team)}/rotate` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/oauth-clients/:clientId',
    call: async (t, team) => ({ method: 'delete', path: `${org(team)}/oauth-clients/${await organizationClient(t, team)}` }),
    expected: '204 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/identity-provider',
    call: async (t, team) => ({ method: 'get', path: await freshIdentityProvider(t, team) }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/identity-provider/redirect-uri/confirm',
    call: async (t, team) => ({ method: 'post', path: `${await freshIdentityProvider(t, team)}/redirect-uri/confirm` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/identity-provider/redirect-uri',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/identity-provider/redirect-uri` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'PUT /api/organizations/:orgId/identity-provider',
    // An admin as default role, so no cell fetches an IdP's documents: an admin session gets 400.
    call: async (t, team) => ({
      method: 'put',
      path: await freshIdentityProvider(t, team),
      body: { issuer: 'https://idp.invalid', clientId: 'c', clientSecret: 's', defaultRole: 'admin' },
    }),
    expected: '400 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/identity-provider',
    call: async (t, team) => ({ method: 'delete', path: await freshIdentityProvider(t, team) }),
    expected: '204 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/identity-provider/domains/:domain/verify',
    // An already verified domain, so no cell looks up DNS: an admin session gets it as it is.
    call: async (t, team) => ({ method: 'post', path: `${await freshIdentityProvider(t, team)}/domains/${team.organization.id.slice(0, 8)}.example.com/verify` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/api-keys',
    call: async (_t, team) => ({ method: 'post', path: `${org(team)}/api-keys`, body: { name: 'k', permissions: ['projects:read'] } }),
    expected: '201 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/api-keys',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/api-keys` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/api-keys/:keyId/revoke',
    call: async (t, team) => ({
      method: 'post',
      path: `${org(team)}/api-keys/${(await createApiKey(t.dataSource, team.organization.id, ['projects:read'])).id}/revoke`,
    }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/api-keys/:keyId/rotate',
    call: async (t, team) => ({
      method: 'post',
      path: `${org(team)}/api-keys/${(await createApiKey(t.dataSource, team.organization.id, ['projects:read'])).id}/rotate`,
      body: { overlapSeconds: 60 },
    }),
    expected: '201 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/scim-tokens',
    call: async (_t, team) => ({ method: 'post', path: `${org(team)}/scim-tokens`, body: { name: 'Okta' } }),
    expected: '201 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/scim-tokens',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/scim-tokens` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/scim-tokens/:tokenId',
    call: async (t, team) => {
      const [row] = await t.dataSource.query(
        `INSERT INTO scim_tokens (organization_id, name, token_hash, secret_last4) VALUES ($1, 'Okta', $2, 'abcd') RETURNING id`,
        [team.organization.id, randomUUID()],
      );
      return { method: 'delete', path: `${org(team)}/scim-tokens/${(row as { id: string }).id}` };
    },
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/audit-events',
    permission: 'audit:read',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/audit-events` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/audit-events/export',
    permission: 'audit:read',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/audit-events/export` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/audit-events/verify',
    permission: 'audit:read',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/audit-events/verify` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/me/agent-grants',
    call: async () => ({ method: 'get', path: '/api/me/agent-grants' }),
    expected: '200 200 200 403 403 403 403 401 401 401',
  },
  {
    // The grant is the admin's: another person's session finds no such grant.
    route: 'POST /api/me/agent-grants/:grantId/revoke',
    call: async (t, team) => ({ method: 'post', path: `/api/me/agent-grants/${await freshGrant(t, team)}/revoke` }),
    expected: '200 404 404 403 403 403 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/agent-grants',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/agent-grants` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    // The grant is the admin's in the team's organisation: only its admins may end it here.
    route: 'POST /api/organizations/:orgId/agent-grants/:grantId/revoke',
    call: async (t, team) => ({ method: 'post', path: `${org(team)}/agent-grants/${await freshGrant(t, team)}/revoke` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/agent-service-keys',
    permission: 'service_keys:write',
    call: async (_t, team) => ({ method: 'post', path: serviceKeys(team), body: { name: 'k' } }),
    expected: '201 403 404 201 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/agent-service-keys',
    permission: 'service_keys:read',
    call: async (_t, team) => ({ method: 'get', path: serviceKeys(team) }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/agent-service-keys/:keyId',
    permission: 'service_keys:read',
    call: async (t, team) => ({ method: 'get', path: `${serviceKeys(team)}/${await freshServiceKey(t, team)}` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/agent-service-keys/:keyId/revoke',
    permission: 'service_keys:write',
    call: async (t, team) => ({ method: 'post', path: `${serviceKeys(team)}/${await freshServiceKey(t, team)}/revoke` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/agent-service-keys/:keyId/tokens',
    permission: 'service_keys:read',
    call: async (t, team) => ({ method: 'get', path: `${serviceKeys(team)}/${await freshServiceKey(t, team)}/tokens` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/agent-service-keys/:keyId/tokens',
    permission: 'service_keys:write',
    call: async (t, team) => ({
      method: 'post',
      path: `${serviceKeys(team)}/${await freshServiceKey(t, team)}/tokens`,
      body: { projectId: (await createProject(t.dataSource, team.organization.id)).id },
    }),
    expected: '201 403 404 201 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/agent-service-keys/:keyId/tokens/:tokenId/revoke',
    permission: 'service_keys:write',
    call: async (t, team) => {
      const keyId = await freshServiceKey(t, team);
      return { method: 'post', path: `${serviceKeys(team)}/${keyId}/tokens/${await freshDerivedToken(t, team, keyId)}/revoke` };
    },
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/agent-service-keys/:keyId/tokens/:tokenId/rotate',
    permission: 'service_keys:write',
    call: async (t, team) => {
      const keyId = await freshServiceKey(t, team);
      return {
        method: 'post',
        path: `${serviceKeys(team)}/${keyId}/tokens/${await freshDerivedToken(t, team, keyId)}/rotate`,
        body: { overlapSeconds: 60 },
      };
    },
    expected: '201 403 404 201 403 404 403 401 401 401',
  },
];

async function freshServiceKey(t: TestApp, team: Team): Promise<string> {
  const [row] = await t.dataSource.query(
    `INSERT INTO service_keys (organization_id, name, permissions) VALUES ($1, 'matrix key', $2) RETURNING id`,
    [team.organization.id, AGENT_PERMISSION_NAMES],
  );
  return (row as { id: string }).id;
}

async function freshDerivedToken(t: TestApp, team: Team, serviceKeyId: string): Promise<string> {
  const project = await createProject(t.dataSource, team.organization.id);
  const [row] = await t.dataSource.query(
    `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, service_key_id)
     VALUES ($1, 'service_key', $2, $3, $4, $5) RETURNING id`,
    [hashToken(generateToken('dga_')), team.organization.id, project.id, AGENT_PERMISSION_NAMES, serviceKeyId],
  );
  return (row as { id: string }).id;
}

/** A live OAuth grant of the team's admin to a fresh client, on a fresh project. */
async function freshGrant(t: TestApp, team: Team): Promise<string> {
  const project = await createProject(t.dataSource, team.organization.id);
  const clientId = `matrix-${randomUUID()}`;
  await t.dataSource.query(
    `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, token_endpoint_auth_method)
     VALUES ($1, 'Matrix client', $2, $3, 'none')`,
    [clientId, ['http://127.0.0.1/cb'], ['authorization_code', 'refresh_token']],
  );
  const [row] = await t.dataSource.query(
    `INSERT INTO oauth_grants (user_id, client_id, organization_id, project_id, permissions) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [team.admin.id, clientId, team.organization.id, project.id, ['project:read']],
  );
  return (row as { id: string }).id;
}

/** A pending invitation inserted directly, with its secret. */
async function freshInvitation(t: TestApp, organizationId: string): Promise<{ id: string; token: string }> {
  const token = generateToken('dgi_');
  const [row] = await t.dataSource.query(
    `INSERT INTO invitations (organization_id, email, role, token_hash, expires_at) VALUES ($1, $2, 'member', $3, now() + interval '1 day') RETURNING id`,
    [organizationId, `i-${randomUUID().slice(0, 8)}@example.test`, hashToken(token)],
  );
  return { id: (row as { id: string }).id, token };
}

/** The team's organisation connected to an IdP (written straight, no IdP running) with one verified domain; answers the settings' path. */
async function freshIdentityProvider(t: TestApp, team: Team): Promise<string> {
  await insertIdentityProvider(t, team.organization.id, { verifiedDomains: [`${team.organization.id.slice(0, 8)}.example.com`] });
  return `${org(team)}/identity-provider`;
}

/** A pending approval of a derived token's call under an `admins` rule (inserted: the MCP path makes real ones). */
async function freshApproval(t: TestApp, team: Team): Promise<string> {
  const project = await createProject(t.dataSource, team.organization.id);
  const token = await createAgentToken(t.dataSource, { id: project.id, organizationId: team.organization.id });
  const [row] = await t.dataSource.query(
    `INSERT INTO approvals (organization_id, project_id, tool, arguments, arguments_sha256, credential_kind, credential_id, token_id,
                            rule_id, rule_sha256, settings, binding_sha256, expires_at)
     VALUES ($1, $2, 'create_task', '{"title":"T"}', 'a', 'derived', $3, $3, 'ask', 'r', '{"approvers":"admins","count":1,"selfApproval":false,"ttlSeconds":600}',
             $4, now() + interval '10 minutes') RETURNING id`,
    [team.organization.id, project.id, token.id, randomUUID()],
  );
  return (row as { id: string }).id;
}

async function freshMember(t: TestApp, team: Team): Promise<string> {
  const user = await createPersonWithoutPassword(t.dataSource);
  await addMember(t.dataSource, team.organization.id, user.id, 'member');
  return user.id;
}

async function credentials(t: TestApp, team: Team, permission: ApiKeyPermission | undefined): Promise<Record<Actor, string | undefined>> {
  const others = API_KEY_PERMISSION_NAMES.filter((p) => p !== permission);
  const project = await createProject(t.dataSource, team.organization.id);
  return {
    admin: team.admin.jwt,
    member: team.member.jwt,
    outsider: team.outsider.jwt,
    rkWith: (await createApiKey(t.dataSource, team.organization.id, permission ? [permission] : API_KEY_PERMISSION_NAMES)).key,
    rkWithout: (await createApiKey(t.dataSource, team.organization.id, permission ? others : ['projects:read'])).key,
    rkOther: (await createApiKey(t.dataSource, team.other.id, API_KEY_PERMISSION_NAMES)).key,
    dga: (await createAgentToken(t.dataSource, project)).token,
    none: undefined,
    unknown: 'not-a-credential',
    rkUnknown: generateToken('rk_'),
  };
}

describe('REST access matrix (SPEC §6)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('has a row for every REST route the router serves, and only for routes it serves', () => {
    const mounted = mountedRoutes(t.app);
    const rest = mounted.filter((r) => r.access?.type === 'rest');
    const rows = new Map(ROWS.map((r) => [r.route, r]));
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.map((r) => `${r.method} ${r.path}`).filter((route) => !rows.has(route))).toEqual([]);
    expect(ROWS.map((r) => r.route).filter((route) => !mounted.some((m) => `${m.method} ${m.path}` === route))).toEqual([]);
    // A row's rk_ columns are built from its permission: it must be the one the route declares.
    for (const route of rest) {
      const access = route.access as { permission?: ApiKeyPermission };
      expect([`${route.method} ${route.path}`, rows.get(`${route.method} ${route.path}`)?.permission]).toEqual([`${route.method} ${route.path}`, access.permission]);
    }
  });

  it.each(ROWS.map((row) => [row.route, row] as const))('%s', async (_route, row) => {
    const team = (await createTeam(t)) as unknown as Team;
    const creds = await credentials(t, team, row.permission);
    const expected = row.expected.trim().split(/\s+/).map(Number);
    expect(expected).toHaveLength(ACTORS.length);
    const actual: Record<string, number> = {};
    for (const actor of ACTORS) {
      const call = await row.call(t, team);
      let req = request(t.baseUrl)[call.method](call.path).set('Origin', 'https://elsewhere.example');
      const credential = creds[actor];
      if (credential) req = req.set('Authorization', `Bearer ${credential}`);
      const res = await (call.body ? req.send(call.body) : req);
      actual[actor] = res.status;
      // The REST surface never grants CORS (SPEC §6).
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(actual).toEqual(Object.fromEntries(ACTORS.map((a, i) => [a, expected[i]])));
  });
});
