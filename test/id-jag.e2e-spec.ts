import request from 'supertest';
import { decodeJwt } from 'jose';
import {
  basicAuth,
  Enterprise,
  idJagClaims,
  idJagFromIdp,
  idTokenFromIdp,
  JWT_BEARER,
  setUpEnterprise,
  signedIdJag,
  tradeIdJag,
} from './factories/id-jag';
import { registerClient, tokenRequest } from './factories/oauth';
import { sessionFor } from './factories/rest';
import { DashboardClient } from './helpers/dashboard';
import { connectIdentityProvider } from './helpers/identity';
import { DocumentServer } from './helpers/document-server';
import { callTool, listToolsRaw } from './helpers/mcp-raw';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

/**
 * Enterprise-Managed Authorization: an AI client trades an ID-JAG of the organisation's identity
 * provider (the tests' oidc-provider) at the token endpoint (the jwt-bearer grant). The IdP
 * settings are saved over REST as an admin; the admin's single sign-on, which acceptIdJag needs,
 * is recorded with `recordAdminSignIn` (what the SSO callback records), and each organisation's
 * IdP `tenant` (learnt from the ID token at that sign-in) is written through the directory.
 */
describe('Enterprise-Managed Authorization: the jwt-bearer grant with an ID-JAG', () => {
  let t: TestApp;
  let idp: TestIdp;
  let e: Enterprise;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({
      IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true',
      CLIENT_METADATA_ALLOW_LOOPBACK: 'true',
      REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000',
      TOKEN_MAX_FAILURES_PER_CLIENT_AND_IP: '100000',
      ID_JAG_MAX_TRADES_PER_HOUR: '3',
    });
    e = await setUpEnterprise(t, idp);
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const refusal = async (assertion: string, error: string, description: string, client: { client_id: string; client_secret?: string } = e.client, extra: Record<string, string> = {}) => {
    const res = await tradeIdJag(t, client, assertion, extra);
    expect({ status: res.status, body: res.body }).toEqual({ status: error === 'invalid_client' ? 401 : 400, body: { error, error_description: description } });
    expect(JSON.stringify(res.body)).not.toContain(assertion);
    return res;
  };

  it('trades an ID-JAG from the IdP for a one-hour dga_ token on the configured project, without a refresh token', async () => {
    const idToken = await idTokenFromIdp(idp, e);
    const idJag = await idJagFromIdp(idp, t, e, idToken, 'project:read tasks:read tasks:write');
    expect(decodeJwt(idJag)).toMatchObject({ iss: idp.issuer, aud: t.config.issuer, client_id: e.client.client_id, sub: e.person.sub });

    const res = await tradeIdJag(t, e.client, idJag, { resource: t.config.mcpResourceUrl });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^dga_/),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'project:read tasks:read tasks:write',
    });
    const token = res.body.access_token as string;

    const list = await listToolsRaw(t.baseUrl, token);
    expect(list.status).toBe(200);
    const tools = ((await list.json()) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['get_project', 'list_tasks', 'create_task']));
    expect(tools).not.toContain('delete_task');

    const project = await callTool(t.baseUrl, token, 'modern', 'get_project', {});
    expect(project.body.result?.structuredContent).toMatchObject({ id: e.project.id, organization: { id: e.organization.id } });
    const created = await callTool(t.baseUrl, token, 'legacy', 'create_task', { title: 'Filed through the IdP' });
    expect(created.body.result?.isError).toBeFalsy();
    const [task] = await t.dataSource.query('SELECT project_id FROM tasks WHERE title = $1', ['Filed through the IdP']);
    expect(task.project_id).toBe(e.project.id);

    // The connected clients show the grant and where it came from; the audit log names the IdP, jti and client.
    const mine = await request(t.baseUrl).get('/api/me/agent-grants').auth(await sessionFor(t, e.person.id), { type: 'bearer' }).expect(200);
    expect(mine.body).toEqual([
      expect.objectContaining({
        client: { id: e.client.client_id, name: 'Enterprise AI client' },
        project: { id: e.project.id, name: e.project.name },
        permissions: ['project:read', 'tasks:read', 'tasks:write'],
        identityProvider: { issuer: idp.issuer },
      }),
    ]);
    const organizations = await request(t.baseUrl)
      .get(`/api/organizations/${e.organization.id}/agent-grants`)
      .auth(await sessionFor(t, e.admin.id), { type: 'bearer' })
      .expect(200);
    expect(organizations.body.items).toEqual([expect.objectContaining({ user: expect.objectContaining({ id: e.person.id }), identityProvider: { issuer: idp.issuer } })]);
    const page = await new DashboardClient(t.baseUrl, await sessionFor(t, e.admin.id)).get(`/orgs/${e.organization.id}/clients`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`via the identity provider <code>${idp.issuer}</code> (ID-JAG)`);
    // An organisation client has no redirect URI: its row says what it is, not "answers at" and nothing.
    expect(page.text).toContain('an organisation client: no redirect, it gets its tokens at the token endpoint');
    expect(page.text).not.toMatch(/answers at <\/span>|answers at\s*<\/span>/);
    const events = await t.dataSource.query(
      `SELECT actor_type, actor_id, project_id, metadata FROM audit_events WHERE action = 'grant.id_jag_exchanged' AND organization_id = $1`,
      [e.organization.id],
    );
    expect(events).toEqual([
      {
        actor_type: 'user',
        actor_id: e.person.id,
        project_id: e.project.id,
        metadata: {
          identityProvider: idp.issuer,
          jti: decodeJwt(idJag).jti,
          clientId: e.client.client_id,
          clientName: 'Enterprise AI client',
          permissions: ['project:read', 'tasks:read', 'tasks:write'],
        },
      },
    ]);

    // A second trade reuses the grant: one connected client, and the person's request budget stays the grant's.
    const again = await tradeIdJag(t, e.client, await idJagFromIdp(idp, t, e, idToken, 'project:read tasks:read tasks:write'));
    expect(again.status).toBe(200);
    const grants = await t.dataSource.query('SELECT id FROM oauth_grants WHERE user_id = $1 AND revoked_at IS NULL', [e.person.id]);
    expect(grants).toHaveLength(1);
  });

  it('grants the asserted scope when none is requested, and the intersection when one is', async () => {
    const f = await setUpEnterprise(t, idp);
    const asserted = await tradeIdJag(t, f.client, await signedIdJag(idp, idJagClaims(idp, t, f, { scope: 'project:read tasks:read' })));
    expect(asserted.body).toMatchObject({ scope: 'project:read tasks:read' });
    const narrowed = await tradeIdJag(t, f.client, await signedIdJag(idp, idJagClaims(idp, t, f, { scope: 'project:read tasks:read' })), {
      scope: 'tasks:read tasks:delete offline_access',
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body).toMatchObject({ scope: 'tasks:read' });
  });

  it('refuses an empty scope intersection with invalid_scope naming what was compared', async () => {
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, e, { scope: 'project:read' })),
      'invalid_scope',
      "No scope is left to grant: the requested scope (tasks:delete), the ID-JAG's scope (project:read), what the person's role allows (project:read tasks:read tasks:write tasks:delete) have none in common",
      e.client,
      { scope: 'tasks:delete' },
    );
  });

  it('refuses a replayed jti: an ID-JAG is traded once', async () => {
    const f = await setUpEnterprise(t, idp);
    const idJag = await signedIdJag(idp, idJagClaims(idp, t, f));
    expect((await tradeIdJag(t, f.client, idJag)).status).toBe(200);
    await refusal(idJag, 'invalid_grant', 'This ID-JAG was already used (its jti): each is traded once; ask the identity provider for a new one', f.client);
  });

  it('refuses an unknown issuer, an IdP that does not accept ID-JAGs, one without an admin sign-in, and another organisation’s issuer', async () => {
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, e, { iss: 'http://127.0.0.1:9/unknown-idp' })),
      'invalid_grant',
      "The ID-JAG's issuer is not the identity provider of the organisation this client belongs to",
    );
    const off = await setUpEnterprise(t, idp, { tenant: 'globex', acceptIdJag: false });
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, off, { tenant: 'globex' })),
      'invalid_grant',
      `The identity provider ${idp.issuer} does not accept ID-JAGs here: an admin switches on acceptIdJag in the organisation's identity-provider settings`,
      off.client,
    );
    const unsigned = await setUpEnterprise(t, idp, { tenant: 'initech', adminSignedIn: false });
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, unsigned, { tenant: 'initech' })),
      'invalid_grant',
      `The identity provider ${idp.issuer} accepts ID-JAGs only once an admin of the organisation has signed in through it`,
      unsigned.client,
    );
    // The same IdP under another organisation's tenant: e's client routes to e's organisation, whose tenant it is not.
    await setUpEnterprise(t, idp, { tenant: 'umbrella' });
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, e, { tenant: 'umbrella' })),
      'invalid_grant',
      "The ID-JAG's tenant is not the organisation's tenant at its identity provider",
    );
  });

  it("routes an ID-JAG to the organisation that made the client: two organisations accepting one issuer (no tenant) each trade their own, and neither's client reaches the other", async () => {
    const first = await setUpEnterprise(t, idp, { tenant: null });
    const second = await setUpEnterprise(t, idp, { tenant: null });
    for (const f of [first, second]) {
      const res = await tradeIdJag(t, f.client, await signedIdJag(idp, idJagClaims(idp, t, f)));
      expect(res.status).toBe(200);
      const [grant] = await t.dataSource.query('SELECT organization_id, project_id FROM oauth_grants WHERE client_id = $1', [f.client.client_id]);
      expect(grant).toEqual({ organization_id: f.organization.id, project_id: f.project.id });
    }
    // The first organisation's client with the second organisation's person: routed to the first, where that person is no member.
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, { ...second, client: first.client })),
      'invalid_grant',
      'The person is not a member of the organisation whose identity provider issued the ID-JAG',
      first.client,
    );
  });

  it('refuses a bad signature, a key not in the IdP’s key set, alg none and HS256, and a typ other than oauth-id-jag+jwt', async () => {
    const valid = await signedIdJag(idp, idJagClaims(idp, t, e));
    const [h, , s] = valid.split('.');
    const otherClaims = Buffer.from(JSON.stringify(idJagClaims(idp, t, e, { scope: 'project:read tasks:read tasks:write tasks:delete' }))).toString('base64url');
    await refusal(`${h}.${otherClaims}.${s}`, 'invalid_grant', "The ID-JAG's signature does not verify with the identity provider's keys");
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e), {}, { key: 'foreign' }), 'invalid_grant', "The ID-JAG's signing key (kid) is not in the identity provider's key set");
    const algorithm = "The assertion's alg must be an asymmetric signature algorithm (none and HS* are refused)";
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e), {}, { key: 'none' }), 'invalid_grant', algorithm);
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e), {}, { key: 'hs256' }), 'invalid_grant', algorithm);
    const typ = "The assertion's typ header must be oauth-id-jag+jwt (an ID-JAG)";
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e), { typ: 'JWT' }), 'invalid_grant', typ);
    await refusal(await idp.signJwt(idJagClaims(idp, t, e)), 'invalid_grant', typ);
    await refusal('not-a-jwt', 'invalid_grant', 'The assertion is not a JWT (three base64url parts, a JSON header)');
  });

  it('refuses a wrong aud, an aud of two, a client_id of another client and a foreign resource', async () => {
    const aud = `The ID-JAG's aud is not this authorization server's issuer (${t.config.issuer})`;
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e, { aud: 'https://other-gateway.example' })), 'invalid_grant', aud);
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, e, { aud: [t.config.issuer, 'https://other-gateway.example'] })),
      'invalid_grant',
      `The ID-JAG's aud must name this authorization server alone (${t.config.issuer}), not 2 audiences`,
    );
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e, { client_id: 'another-client' })), 'invalid_grant', "The ID-JAG's client_id is not the authenticated client");
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, e, { resource: 'https://other-gateway.example/api/mcp' })),
      'invalid_grant',
      `The ID-JAG's resource is not this server's MCP resource (${t.config.mcpResourceUrl})`,
    );
  });

  it('refuses an expired ID-JAG and one issued in the future (60 s of skew tolerated)', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e, { iat: now - 600, exp: now - 61 })), 'invalid_grant', 'The ID-JAG has expired (exp)');
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e, { iat: now + 120, exp: now + 600 })), 'invalid_grant', 'The ID-JAG was issued in the future (iat)');
    const f = await setUpEnterprise(t, idp);
    const skewed = await tradeIdJag(t, f.client, await signedIdJag(idp, idJagClaims(idp, t, f, { iat: now + 30, exp: now - 30 })));
    expect(skewed.status).toBe(200);
  });

  it('refuses an ID-JAG living longer than 600 s (exp - iat), even one issued long ago and not expired, and one not valid yet (nbf)', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e, { iat: now, exp: now + 3600 })), 'invalid_grant', 'The ID-JAG lives longer than 600 seconds (exp - iat)');
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e, { iat: now - 700, exp: now + 100 })), 'invalid_grant', 'The ID-JAG lives longer than 600 seconds (exp - iat)');
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, e, { iat: now, exp: now + 300, nbf: now + 200 })), 'invalid_grant', 'The ID-JAG is not valid yet (nbf)');
  });

  it('refuses an unlinked sub and a member deactivated by provisioning', async () => {
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, e, { sub: 'nobody-linked' })),
      'invalid_grant',
      "The ID-JAG's subject is not linked to an account here: the person signs in once through the organisation's single sign-on",
    );
    const f = await setUpEnterprise(t, idp);
    await t.dataSource.query(`INSERT INTO provisioned_users (organization_id, user_id, user_name, active) VALUES ($1, $2, $3, false)`, [
      f.organization.id,
      f.person.id,
      f.person.email.toLowerCase(),
    ]);
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, f)),
      'invalid_grant',
      "The person was deactivated in the organisation by its identity provider's provisioning (SCIM)",
      f.client,
    );
  });

  it("refuses a client the organisation's client policy does not admit", async () => {
    const f = await setUpEnterprise(t, idp);
    await request(t.baseUrl)
      .put(`/api/organizations/${f.organization.id}/client-policy`)
      .auth(await sessionFor(t, f.admin.id), { type: 'bearer' })
      .send({ mode: 'listed', allowedHosts: ['claude.ai'], allowRegisteredClients: false })
      .expect(200);
    await refusal(await signedIdJag(idp, idJagClaims(idp, t, f)), 'invalid_grant', "The organisation's client policy does not admit this client", f.client);
  });

  it('refuses a client without an idJagClients entry, or with no project chosen, telling the admin what to set', async () => {
    const absent = await setUpEnterprise(t, idp, { tenant: 'hooli', projectForClient: 'absent' });
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, absent, { tenant: 'hooli' })),
      'invalid_grant',
      "This client is not among the organisation's ID-JAG clients: an admin adds its client_id with a project in the organisation's identity-provider settings (idJagClients)",
      absent.client,
    );
    const unset = await setUpEnterprise(t, idp, { tenant: 'vandelay', projectForClient: 'null' });
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, unset, { tenant: 'vandelay' })),
      'invalid_grant',
      "No project is set for this client: an admin chooses its project in the organisation's identity-provider settings (idJagClients)",
      unset.client,
    );
  });

  it('refuses a public client, a metadata-document client and a registered confidential client; registration refuses the grant', async () => {
    const publicClient = await registerClient(t.baseUrl, { client_name: 'Public' });
    const assertion = await signedIdJag(idp, idJagClaims(idp, t, e, { client_id: publicClient.client_id }));
    const res = await tokenRequest(t.baseUrl, { grant_type: JWT_BEARER, assertion, client_id: publicClient.client_id });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: 'invalid_client',
      error_description:
        'A public client cannot trade an ID-JAG: an admin of the organisation makes an organisation client (POST /api/organizations/:orgId/oauth-clients) and the AI client authenticates with its secret',
    });

    const docs = await DocumentServer.start();
    try {
      const url = docs.json('/ai-client.json', (u) => ({ client_id: u, client_name: 'Document client', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }));
      const doc = await tokenRequest(t.baseUrl, { grant_type: JWT_BEARER, assertion: await signedIdJag(idp, idJagClaims(idp, t, e, { client_id: url })), client_id: url });
      expect(doc.status).toBe(401);
      expect(doc.body).toEqual({
        error: 'invalid_client',
        error_description:
          'A metadata-document client is public and cannot trade an ID-JAG: register a confidential client (token_endpoint_auth_method client_secret_basic or client_secret_post)',
      });
    } finally {
      await docs.close();
    }

    const consentOnly = await registerClient(t.baseUrl, { token_endpoint_auth_method: 'client_secret_post' });
    const unregistered = await tokenRequest(t.baseUrl, {
      grant_type: JWT_BEARER,
      assertion: await signedIdJag(idp, idJagClaims(idp, t, e, { client_id: consentOnly.client_id })),
      client_id: consentOnly.client_id,
      client_secret: consentOnly.client_secret,
    });
    expect({ status: unregistered.status, body: unregistered.body }).toEqual({
      status: 401,
      body: {
        error: 'invalid_client',
        error_description: 'Only an organisation client trades ID-JAGs: an admin of the organisation makes one (POST /api/organizations/:orgId/oauth-clients, or the Connected clients page)',
      },
    });

    // Anonymous registration refuses the grant, public or confidential (SPEC §10).
    for (const metadata of [{ grant_types: [JWT_BEARER] }, { grant_types: [JWT_BEARER], token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [] }]) {
      const refused = await fetch(`${t.baseUrl}/api/agent/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        error: 'invalid_client_metadata',
        error_description: `The ${JWT_BEARER} grant (ID-JAG) is not registered anonymously: an admin of the organisation makes an organisation client for it (POST /api/organizations/:orgId/oauth-clients, or the Connected clients page)`,
      });
    }
  });

  it('authenticates the client with client_secret_post as well, and refuses a wrong secret', async () => {
    const f = await setUpEnterprise(t, idp);
    const post = await tokenRequest(t.baseUrl, {
      grant_type: JWT_BEARER,
      assertion: await signedIdJag(idp, idJagClaims(idp, t, f)),
      client_id: f.client.client_id,
      client_secret: f.client.client_secret,
    });
    expect(post.status).toBe(200);
    const wrong = await tokenRequest(
      t.baseUrl,
      { grant_type: JWT_BEARER, assertion: await signedIdJag(idp, idJagClaims(idp, t, f)) },
      { authorization: basicAuth(f.client.client_id, 'dgs_wrong') },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
  });

  it('limits trades per organisation, person and client: a fresh assertion buys no fresh allowance', async () => {
    const f = await setUpEnterprise(t, idp);
    for (let i = 0; i < 3; i++) expect((await tradeIdJag(t, f.client, await signedIdJag(idp, idJagClaims(idp, t, f)))).status).toBe(200);
    const limited = await tradeIdJag(t, f.client, await signedIdJag(idp, idJagClaims(idp, t, f)));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.stringMatching(/^Too many ID-JAG trades for this person and client; retry in \d+ s$/),
    });
  });

  it('ends the token when the person disconnects the client, and when the person is removed from the organisation', async () => {
    const f = await setUpEnterprise(t, idp);
    const first = (await tradeIdJag(t, f.client, await signedIdJag(idp, idJagClaims(idp, t, f)))).body.access_token as string;
    expect((await listToolsRaw(t.baseUrl, first)).status).toBe(200);
    const session = await sessionFor(t, f.person.id);
    const [grant] = (await request(t.baseUrl).get('/api/me/agent-grants').auth(session, { type: 'bearer' }).expect(200)).body;
    await request(t.baseUrl).post(`/api/me/agent-grants/${grant.id}/revoke`).auth(session, { type: 'bearer' }).expect(200);
    expect((await listToolsRaw(t.baseUrl, first)).status).toBe(401);

    const second = (await tradeIdJag(t, f.client, await signedIdJag(idp, idJagClaims(idp, t, f)))).body.access_token as string;
    expect((await listToolsRaw(t.baseUrl, second)).status).toBe(200);
    await request(t.baseUrl)
      .delete(`/api/organizations/${f.organization.id}/members/${f.person.id}`)
      .auth(await sessionFor(t, f.admin.id), { type: 'bearer' })
      .expect(200);
    expect((await listToolsRaw(t.baseUrl, second)).status).toBe(401);
    await refusal(
      await signedIdJag(idp, idJagClaims(idp, t, f)),
      'invalid_grant',
      'The person is not a member of the organisation whose identity provider issued the ID-JAG',
      f.client,
    );
  });

  it("trades with a confidential client an admin created for the organisation (its secret shown once)", async () => {
    const f = await setUpEnterprise(t, idp);
    const created = await request(t.baseUrl)
      .post(`/api/organizations/${f.organization.id}/oauth-clients`)
      .auth(await sessionFor(t, f.admin.id), { type: 'bearer' })
      .send({ clientName: 'Claude for the company' })
      .expect(201);
    expect(created.body).toEqual({
      clientId: expect.any(String),
      clientSecret: expect.stringMatching(/^dgs_/),
      clientName: 'Claude for the company',
      grantTypes: [JWT_BEARER],
      tokenEndpointAuthMethod: 'client_secret_basic',
      createdAt: expect.any(String),
    });
    const [row] = await t.dataSource.query('SELECT client_secret_hash, redirect_uris FROM oauth_clients WHERE client_id = $1', [created.body.clientId]);
    expect(row).toEqual({ client_secret_hash: expect.not.stringContaining(created.body.clientSecret), redirect_uris: [] });
    const [event] = await t.dataSource.query(`SELECT organization_id, actor_id, metadata::text AS m FROM audit_events WHERE action = 'oauth_client.registered' AND target_id = $1`, [
      created.body.clientId,
    ]);
    expect(event).toMatchObject({ organization_id: f.organization.id, actor_id: f.admin.id });
    expect(event.m).not.toContain(created.body.clientSecret);

    await connectIdentityProvider(t, f.organization.id, await sessionFor(t, f.admin.id), {
      issuer: idp.issuer,
      acceptIdJag: true,
      idJagClients: [{ clientId: created.body.clientId, projectId: f.project.id }],
    });
    const client = { client_id: created.body.clientId as string, client_secret: created.body.clientSecret as string };
    const res = await tradeIdJag(t, client, await signedIdJag(idp, idJagClaims(idp, t, { ...f, client: { ...f.client, ...client } })));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });

    const byMember = await request(t.baseUrl)
      .post(`/api/organizations/${f.organization.id}/oauth-clients`)
      .auth(await sessionFor(t, f.person.id), { type: 'bearer' })
      .send({ clientName: 'Mine' });
    expect(byMember.status).toBe(403);
    const unnamed = await request(t.baseUrl)
      .post(`/api/organizations/${f.organization.id}/oauth-clients`)
      .auth(await sessionFor(t, f.admin.id), { type: 'bearer' })
      .send({ clientName: '  ' });
    expect(unnamed.status).toBe(400);
  });

  it('asks for the assertion, and refuses one sent twice', async () => {
    const missing = await tokenRequest(t.baseUrl, { grant_type: JWT_BEARER }, { authorization: basicAuth(e.client.client_id, e.client.client_secret) });
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'assertion is required (the ID-JAG)' });
    const res = await fetch(`${t.baseUrl}/api/agent/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(e.client.client_id, e.client.client_secret) },
      body: `grant_type=${encodeURIComponent(JWT_BEARER)}&assertion=a&assertion=b`,
    });
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'assertion was sent more than once' });
  });
});

describe('Enterprise-Managed Authorization: a key the IdP rotated away', () => {
  let t: TestApp;
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  it('accepts an ID-JAG signed with the new key and refuses one signed with the key rotated away', async () => {
    // A single-tenant issuer: its settings name no tenant, its ID-JAGs carry none.
    // Set up without fetching the key set, so that the first fetch comes after the rotation.
    const e = await setUpEnterprise(t, idp, { tenant: null, direct: true });
    const old = await signedIdJag(idp, idJagClaims(idp, t, e));
    await idp.rotateKeys();
    const fresh = await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)));
    expect(fresh.status).toBe(200);
    const res = await tradeIdJag(t, e.client, old);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: "The ID-JAG's signing key (kid) is not in the identity provider's key set" });
  });
});
