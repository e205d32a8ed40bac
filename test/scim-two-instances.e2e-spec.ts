import { randomBytes, randomUUID } from 'node:crypto';
import { generateToken, hashToken } from '@app/credential-store';
import { GatewayProcess, startGatewayProcess } from './helpers/gateway-process';
import { listToolsRaw } from './helpers/mcp-raw';
import { freePort } from './helpers/postgres-server';
import { ClonedDatabase, cloneTemplateDatabase, withClient } from './helpers/template-database';
import { readTestState, testDatabaseKind } from './helpers/test-state';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * SCIM deprovisioning across instances: a person deactivated through instance A is refused by
 * instance B at their next request (session, agent token, rk_ key), since nothing is cached.
 * Needs the real PostgreSQL run (two processes cannot share the embedded database).
 */
const onPostgres = testDatabaseKind() === 'postgres';
(onPostgres ? describe : describe.skip)('SCIM deactivation on two instances', () => {
  let a: GatewayProcess;
  let b: GatewayProcess;
  let database: ClonedDatabase | undefined;

  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    database = await cloneTemplateDatabase(postgres.port, 'scim');
    const [portA, portB] = [await freePort(), await freePort()];
    const shared = { BASE_URL: `http://127.0.0.1:${portA}`, DATABASE_URL: database.url, SESSION_SECRET: randomBytes(32).toString('hex') };
    [a, b] = await Promise.all([startGatewayProcess(portA, shared), startGatewayProcess(portB, shared)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  async function call(url: string, path: string, init: { method?: string; token?: string; body?: unknown; type?: string } = {}) {
    const res = await fetch(`${url}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'content-type': init.type ?? 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, any> };
  }

  async function signup(url: string, email: string) {
    const password = `pw-${randomUUID()}`;
    const res = await call(url, '/api/auth/signup', { method: 'POST', body: { email, password, name: 'Person', organizationName: `Org ${randomUUID().slice(0, 6)}` } });
    expect(res.status).toBe(201);
    return res.body as { user: { id: string }; organization: { id: string }; accessToken: string };
  }

  it('a deactivation through A refuses the person on B at their next request', async () => {
    const domain = `corp-${randomUUID().slice(0, 8)}.example`;
    const admin = await signup(a.url, `ada@${domain}`);
    const orgId = admin.organization.id;
    // Bob signs up before the domain is verified (afterwards a password sign-up is refused, SPEC §10).
    const bob = await signup(b.url, `bob@${domain}`);
    await withClient(database!.url, async (c) => {
      await c.query(`INSERT INTO identity_providers (organization_id, issuer, client_id, client_secret, default_role) VALUES ($1, 'https://idp.example.test', 'gw', 's', 'member')`, [orgId]);
      await c.query(`INSERT INTO identity_provider_domains (organization_id, domain, verification_token, verified_at) VALUES ($1, $2, 't', now())`, [orgId, domain]);
    });
    // Bob joins as an admin by invitation, makes an rk_ key, and an AI client holds a token of his.
    const invitation = await call(a.url, `/api/organizations/${orgId}/members`, { method: 'POST', token: admin.accessToken, body: { email: `bob@${domain}`, role: 'admin' } });
    expect(invitation.status).toBe(201);
    // Accepting ends the session that accepted and answers a new one (SPEC §10): Bob goes on with it.
    const accepted = await call(b.url, '/api/invitations/accept', { method: 'POST', token: bob.accessToken, body: { token: invitation.body.token } });
    expect(accepted.status).toBe(200);
    bob.accessToken = accepted.body.accessToken as string;
    const rk = await call(b.url, `/api/organizations/${orgId}/api-keys`, { method: 'POST', token: bob.accessToken, body: { name: 'bob automation', permissions: ['projects:read'] } });
    expect(rk.status).toBe(201);
    const project = await call(a.url, `/api/organizations/${orgId}/projects`, { method: 'POST', token: admin.accessToken, body: { name: 'Shared' } });
    const agentToken = generateToken('dga_');
    await withClient(database!.url, async (c) => {
      const clientId = randomUUID();
      await c.query(
        `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, token_endpoint_auth_method) VALUES ($1, 'Client', $2, $3, 'none')`,
        [clientId, ['http://127.0.0.1:8976/callback'], ['authorization_code', 'refresh_token']],
      );
      const [grant] = (await c.query(`INSERT INTO oauth_grants (user_id, client_id, organization_id, project_id, permissions) VALUES ($1, $2, $3, $4, $5) RETURNING id`, [
        bob.user.id,
        clientId,
        orgId,
        project.body.id,
        ['project:read'],
      ])).rows;
      await c.query(
        `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, grant_id, client_id, user_id, expires_at)
         VALUES ($1, 'oauth', $2, $3, $4, $5, $6, $7, now() + interval '1 hour')`,
        [hashToken(agentToken), orgId, project.body.id, ['project:read'], grant.id, clientId, bob.user.id],
      );
    });
    const statusesOnB = async () => [
      (await call(b.url, `/api/organizations/${orgId}/projects`, { token: bob.accessToken })).status,
      (await listToolsRaw(b.url, agentToken)).status,
      (await call(b.url, `/api/organizations/${orgId}/projects`, { token: rk.body.key })).status,
    ];
    expect(await statusesOnB()).toEqual([200, 200, 200]);

    // The IdP's SCIM client provisions Bob (already a member) and deactivates him, through A.
    const scimToken = (await call(a.url, `/api/organizations/${orgId}/scim-tokens`, { method: 'POST', token: admin.accessToken, body: { name: 'Okta' } })).body.token as string;
    const created = await call(a.url, '/scim/v2/Users', { method: 'POST', token: scimToken, type: 'application/scim+json', body: { schemas: [USER], userName: `bob@${domain}` } });
    expect(created.status).toBe(201);
    const deactivated = await call(a.url, `/scim/v2/Users/${created.body.id}`, {
      method: 'PATCH',
      token: scimToken,
      type: 'application/scim+json',
      body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] },
    });
    expect(deactivated.status).toBe(200);
    expect(await statusesOnB()).toEqual([404, 401, 401]);
    // Bob's own organisation still opens on B.
    expect((await call(b.url, `/api/organizations/${bob.organization.id}/projects`, { token: bob.accessToken })).status).toBe(200);
  });
});
