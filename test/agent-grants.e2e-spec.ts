import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { generateToken, hashToken } from '@app/credential-store';
import { startTestApp, TestApp } from './helpers/test-app';
import { addMember, createUser } from './factories';
import { authorizeCode, connectClient, registerClient, tokenRequest } from './factories/oauth';

describe('a person\'s connected AI clients: GET /api/me/agent-grants and revoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterAll(() => t.close());

  const sessionOf = async (userId: string) => (await t.app.get(SessionTokenService).issue(userId)).accessToken;
  const accessRevoked = async (token: string) =>
    (await t.dataSource.query('SELECT revoked_at IS NOT NULL AS r FROM agent_tokens WHERE token_hash = $1', [hashToken(token)]))[0].r as boolean;

  it('lists the grants with client, project, organisation, permissions and times; a new consent keeps the other grants', async () => {
    const first = await connectClient(t, { permissions: ['project:read', 'tasks:read'], clientMetadata: { client_name: 'VS Code' } });
    const client2 = await registerClient(t.baseUrl, { client_name: 'Claude' });
    const { code, verifier, redirectUri } = await authorizeCode(t, { browser: first.browser, client: client2, projectId: first.project.id, permissions: ['tasks:write'] });
    const second = await tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client2.client_id });
    expect(second.status).toBe(200);
    expect(await accessRevoked(first.accessToken)).toBe(false);

    const res = await request(t.baseUrl).get('/api/me/agent-grants').auth(await sessionOf(first.user.id), { type: 'bearer' }).expect(200);
    expect(res.body).toEqual([
      {
        id: expect.any(String),
        client: { id: client2.client_id, name: 'Claude' },
        project: { id: first.project.id, name: first.project.name },
        organization: { id: first.organization.id, name: first.organization.name },
        permissions: ['tasks:write'],
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
      {
        id: expect.any(String),
        client: { id: first.client.client_id, name: 'VS Code' },
        project: { id: first.project.id, name: first.project.name },
        organization: { id: first.organization.id, name: first.organization.name },
        permissions: ['project:read', 'tasks:read'],
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
    ]);
  });

  it('revokes a grant: its refresh and access tokens end in the same step, the event is audited, again is idempotent', async () => {
    const c = await connectClient(t);
    const session = await sessionOf(c.user.id);
    const [grant] = (await request(t.baseUrl).get('/api/me/agent-grants').auth(session, { type: 'bearer' })).body;
    const res = await request(t.baseUrl).post(`/api/me/agent-grants/${grant.id}/revoke`).auth(session, { type: 'bearer' }).expect(200);
    expect(res.body).toEqual({ id: grant.id, status: 'revoked', revokedAt: expect.any(String), revokedTokens: 1 });
    expect(await accessRevoked(c.accessToken)).toBe(true);
    const refresh = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id });
    expect(refresh.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token has been revoked' });
    const events = await t.dataSource.query(
      "SELECT organization_id, project_id, actor_type, actor_id, metadata->>'reason' AS reason FROM audit_events WHERE action = 'grant.revoked' AND target_id = $1",
      [grant.id],
    );
    expect(events).toEqual([{ organization_id: c.organization.id, project_id: c.project.id, actor_type: 'user', actor_id: c.user.id, reason: 'revoked_by_user' }]);
    const again = await request(t.baseUrl).post(`/api/me/agent-grants/${grant.id}/revoke`).auth(session, { type: 'bearer' }).expect(200);
    expect(again.body).toEqual({ ...res.body, revokedTokens: 0 });
    expect((await request(t.baseUrl).get('/api/me/agent-grants').auth(session, { type: 'bearer' })).body).toEqual([]);
  });

  it("answers 404 for another person's grant, an unknown id and a malformed id", async () => {
    const owner = await connectClient(t);
    const [grant] = (await request(t.baseUrl).get('/api/me/agent-grants').auth(await sessionOf(owner.user.id), { type: 'bearer' })).body;
    const intruder = await connectClient(t);
    const session = await sessionOf(intruder.user.id);
    for (const id of [grant.id, randomUUID(), 'nope']) {
      const res = await request(t.baseUrl).post(`/api/me/agent-grants/${id}/revoke`).auth(session, { type: 'bearer' }).expect(404);
      expect(res.body).toEqual({ statusCode: 404, message: 'Grant not found', error: 'Not Found', code: 'not_found' });
    }
    expect(await accessRevoked(owner.accessToken)).toBe(false);
  });

  it('needs a session: no credential → 401, an agent token or an API key → 403', async () => {
    const c = await connectClient(t);
    await request(t.baseUrl).get('/api/me/agent-grants').expect(401);
    await request(t.baseUrl).get('/api/me/agent-grants').auth(c.accessToken, { type: 'bearer' }).expect(403);
    const key = generateToken('rk_');
    await t.dataSource.query(
      "INSERT INTO api_keys (organization_id, name, key_hash, permissions) VALUES ($1, 'k', $2, '{projects:read}')",
      [c.organization.id, hashToken(key)],
    );
    await request(t.baseUrl).get('/api/me/agent-grants').auth(key, { type: 'bearer' }).expect(403);
  });

  it('removing the member over REST ends their grants in that organisation: no refresh, no capability', async () => {
    const member = await connectClient(t);
    const admin = await createUser(t.dataSource);
    await addMember(t.dataSource, member.organization.id, admin.id, 'admin');
    const otherOrg = await connectClient(t);
    await addMember(t.dataSource, otherOrg.organization.id, member.user.id, 'member');

    await request(t.baseUrl)
      .delete(`/api/organizations/${member.organization.id}/members/${member.user.id}`)
      .auth(await sessionOf(admin.id), { type: 'bearer' })
      .expect(200);
    expect(await accessRevoked(member.accessToken)).toBe(true);
    const refresh = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: member.refreshToken, client_id: member.client.client_id });
    expect(refresh.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token has been revoked' });
    const [grant] = await t.dataSource.query('SELECT revoked_at IS NOT NULL AS revoked FROM oauth_grants WHERE user_id = $1 AND organization_id = $2', [member.user.id, member.organization.id]);
    expect(grant).toEqual({ revoked: true });
    const events = await t.dataSource.query(
      "SELECT actor_type, actor_id, metadata->>'reason' AS reason FROM audit_events WHERE action = 'grant.revoked' AND project_id = $1",
      [member.project.id],
    );
    expect(events).toEqual([{ actor_type: 'user', actor_id: admin.id, reason: 'member_removed' }]);
    expect(await accessRevoked(otherOrg.accessToken)).toBe(false);
  });

  it('deleting the project over REST ends the grants on it', async () => {
    const c = await connectClient(t);
    await t.dataSource.query("UPDATE memberships SET role = 'admin' WHERE user_id = $1", [c.user.id]);
    await request(t.baseUrl)
      .delete(`/api/organizations/${c.organization.id}/projects/${c.project.id}`)
      .auth(await sessionOf(c.user.id), { type: 'bearer' })
      .expect(200);
    expect(await accessRevoked(c.accessToken)).toBe(true);
    const refresh = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id });
    expect(refresh.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token has been revoked' });
    const events = await t.dataSource.query(
      "SELECT metadata->>'reason' AS reason FROM audit_events WHERE action = 'grant.revoked' AND project_id = $1",
      [c.project.id],
    );
    expect(events).toEqual([{ reason: 'project_deleted' }]);
  });
});
