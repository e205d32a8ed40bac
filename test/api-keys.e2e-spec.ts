import request from 'supertest';
import { AGENT_PERMISSIONS } from '@app/capabilities';
import { API_KEY_PERMISSIONS, hashToken, isWellFormedToken } from '@app/credential-store';
import { ApiKeyUsageRecorder } from '@app/credentials';
import { createApiKey, createTeam } from './factories/rest';
import { REST_ERRORS } from './fixtures/rest-errors';
import { startTestApp, TestApp } from './helpers/test-app';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('scoped API keys and the permission catalogues (SPEC §6)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  const api = () => request(t.baseUrl);

  it('creates a key: 201 with the rk_ secret once; only its digest is stored; the list never shows it', async () => {
    const team = await createTeam(t);
    const path = `/api/organizations/${team.organization.id}/api-keys`;
    const expiresAt = new Date(Date.now() + 7 * 86400_000).toISOString();
    const res = await api()
      .post(path)
      .auth(team.admin.jwt, { type: 'bearer' })
      .send({ name: 'CI bot', permissions: ['projects:write', 'projects:read', 'projects:read'], expiresAt })
      .expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID_RE),
      key: expect.stringMatching(/^rk_/),
      name: 'CI bot',
      permissions: ['projects:read', 'projects:write'],
      createdAt: expect.stringMatching(ISO_RE),
      expiresAt,
    });
    expect(isWellFormedToken(res.body.key, 'rk_')).toBe(true);
    const [row] = await t.dataSource.query('SELECT key_hash FROM api_keys WHERE id = $1', [res.body.id]);
    expect(row.key_hash).toBe(hashToken(res.body.key));

    const list = await api().get(path).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect(list.body).toEqual({
      items: [
        {
          id: res.body.id,
          name: 'CI bot',
          permissions: ['projects:read', 'projects:write'],
          // The prefix and the last four characters tell keys apart; never the secret.
          secretHint: `rk_…${res.body.key.slice(-4)}`,
          status: 'active',
          createdBy: team.admin.id,
          createdAt: res.body.createdAt,
          expiresAt,
          revokedAt: null,
          lastUsedAt: null,
          replacedBy: null,
          rotatingOutUntil: null,
        },
      ],
      nextCursor: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(res.body.key);

    const [event] = await t.dataSource.query(`SELECT * FROM audit_events WHERE organization_id = $1 AND action = 'api_key.created'`, [team.organization.id]);
    expect(event).toMatchObject({ actor_type: 'user', actor_id: team.admin.id, target_id: res.body.id });
    expect(JSON.stringify(event)).not.toContain(res.body.key);
    expect(JSON.stringify(event)).not.toContain(row.key_hash);

    // The key works, within its permissions.
    await api().get(`/api/organizations/${team.organization.id}/projects`).auth(res.body.key, { type: 'bearer' }).expect(200);
  });

  it('records lastUsedAt off the request path', async () => {
    const team = await createTeam(t);
    const key = await createApiKey(t.dataSource, team.organization.id, ['projects:read']);
    await api().get(`/api/organizations/${team.organization.id}/projects`).auth(key.key, { type: 'bearer' }).expect(200);
    await t.app.get(ApiKeyUsageRecorder).flush();
    const list = await api().get(`/api/organizations/${team.organization.id}/api-keys`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    const first = list.body.items.find((k: { id: string }) => k.id === key.id).lastUsedAt;
    expect(first).toMatch(ISO_RE);
    // Within the minute, another use does not write again.
    await api().get(`/api/organizations/${team.organization.id}/projects`).auth(key.key, { type: 'bearer' }).expect(200);
    await t.app.get(ApiKeyUsageRecorder).flush();
    const [row] = await t.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [key.id]);
    expect(new Date(row.last_used_at).toISOString()).toBe(first);
  });

  it('revokes a key: 200, idempotent, audited once; the key then gets 401', async () => {
    const team = await createTeam(t);
    const key = await createApiKey(t.dataSource, team.organization.id, ['projects:read']);
    const path = `/api/organizations/${team.organization.id}/api-keys/${key.id}/revoke`;
    const first = await api().post(path).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect(first.body).toEqual({ id: key.id, status: 'revoked', revokedAt: expect.stringMatching(ISO_RE) });
    const second = await api().post(path).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect(second.body).toEqual(first.body);
    const events = await t.dataSource.query(`SELECT 1 FROM audit_events WHERE organization_id = $1 AND action = 'api_key.revoked'`, [team.organization.id]);
    expect(events).toHaveLength(1);
    const refused = await api().get(`/api/organizations/${team.organization.id}/projects`).auth(key.key, { type: 'bearer' }).expect(401);
    expect(refused.body).toEqual(REST_ERRORS.invalidCredential);
    const list = await api().get(`/api/organizations/${team.organization.id}/api-keys`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect(list.body.items[0]).toMatchObject({ id: key.id, status: 'revoked', revokedAt: first.body.revokedAt });
  });

  it('revokes once when revocations race', async () => {
    const team = await createTeam(t);
    const key = await createApiKey(t.dataSource, team.organization.id, ['projects:read']);
    const path = `/api/organizations/${team.organization.id}/api-keys/${key.id}/revoke`;
    const results = await Promise.all([0, 1, 2].map(() => api().post(path).auth(team.admin.jwt, { type: 'bearer' })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => r.body.revokedAt)).size).toBe(1);
    const events = await t.dataSource.query(`SELECT 1 FROM audit_events WHERE organization_id = $1 AND action = 'api_key.revoked'`, [team.organization.id]);
    expect(events).toHaveLength(1);
  });

  it("answers 404 for another organisation's key or a non-id", async () => {
    const team = await createTeam(t);
    const foreign = await createApiKey(t.dataSource, team.other.id, ['projects:read']);
    await api().post(`/api/organizations/${team.organization.id}/api-keys/${foreign.id}/revoke`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
    await api().post(`/api/organizations/${team.organization.id}/api-keys/nope/revoke`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
    const [row] = await t.dataSource.query('SELECT revoked_at FROM api_keys WHERE id = $1', [foreign.id]);
    expect(row.revoked_at).toBeNull();
  });

  it('refuses an expired key with 401 and lists it as expired', async () => {
    const team = await createTeam(t);
    const key = await createApiKey(t.dataSource, team.organization.id, ['projects:read'], { expiresAt: new Date(Date.now() - 1000) });
    const res = await api().get(`/api/organizations/${team.organization.id}/projects`).auth(key.key, { type: 'bearer' }).expect(401);
    expect(res.body).toEqual(REST_ERRORS.invalidCredential);
    const list = await api().get(`/api/organizations/${team.organization.id}/api-keys`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect(list.body.items[0]).toMatchObject({ id: key.id, status: 'expired' });
  });

  it('refuses a mistyped key (checksum fails) with 401', async () => {
    const team = await createTeam(t);
    const key = await createApiKey(t.dataSource, team.organization.id, ['projects:read']);
    const typo = `${key.key.slice(0, -1)}${key.key.endsWith('A') ? 'B' : 'A'}`;
    await api().get(`/api/organizations/${team.organization.id}/projects`).auth(typo, { type: 'bearer' }).expect(401);
  });

  it('never lets an rk_ key manage API keys, even with every permission', async () => {
    const team = await createTeam(t);
    const key = await createApiKey(t.dataSource, team.organization.id, Object.keys(API_KEY_PERMISSIONS) as never);
    const base = `/api/organizations/${team.organization.id}/api-keys`;
    for (const res of [
      await api().post(base).auth(key.key, { type: 'bearer' }).send({ name: 'x', permissions: ['projects:read'] }),
      await api().get(base).auth(key.key, { type: 'bearer' }),
      await api().post(`${base}/${key.id}/revoke`).auth(key.key, { type: 'bearer' }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(REST_ERRORS.sessionOnly);
    }
  });

  it.each([
    ['name', { permissions: ['projects:read'] }, 'name should not be empty'],
    ['name', { name: 'x'.repeat(101), permissions: ['projects:read'] }, 'name must be shorter than or equal to 100 characters'],
    ['permissions', { name: 'k' }, 'permissions should not be empty'],
    ['permissions', { name: 'k', permissions: [] }, 'permissions should not be empty'],
    ['permissions', { name: 'k', permissions: 'projects:read' }, 'permissions must be an array'],
    [
      'permissions',
      { name: 'k', permissions: ['projects:read', 'api_keys:write', 'tasks:read'] },
      'permissions[1], permissions[2] are not API-key permissions; allowed: projects:read, projects:write, service_keys:read, service_keys:write, members:read, audit:read',
    ],
    ['expiresAt', { name: 'k', permissions: ['projects:read'], expiresAt: 'tomorrow' }, 'expiresAt must be an ISO 8601 date-time'],
    ['expiresAt', { name: 'k', permissions: ['projects:read'], expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt must be in the future'],
    ['organizationId', { name: 'k', permissions: ['projects:read'], organizationId: 'x' }, 'property organizationId should not exist'],
  ])('answers 400 naming %s', async (_field, body, message) => {
    const team = await createTeam(t);
    const res = await api().post(`/api/organizations/${team.organization.id}/api-keys`).auth(team.admin.jwt, { type: 'bearer' }).send(body).expect(400);
    expect(res.body).toEqual({ statusCode: 400, message: expect.arrayContaining([message]), error: 'Bad Request' });
    expect(await t.dataSource.query('SELECT 1 FROM api_keys WHERE organization_id = $1', [team.organization.id])).toHaveLength(0);
  });

  describe('GET /api/permissions', () => {
    const expected = {
      agent: Object.entries(AGENT_PERMISSIONS).map(([name, description]) => ({ name, description })),
      apiKey: Object.entries(API_KEY_PERMISSIONS).map(([name, description]) => ({ name, description })),
    };

    it('lists both catalogues with descriptions for a session and for any rk_ key', async () => {
      const team = await createTeam(t);
      const key = await createApiKey(t.dataSource, team.organization.id, ['audit:read']);
      const viaSession = await api().get('/api/permissions').auth(team.member.jwt, { type: 'bearer' }).expect(200);
      expect(viaSession.body).toEqual(expected);
      expect(viaSession.body.apiKey.map((p: { name: string }) => p.name)).toEqual([
        'projects:read',
        'projects:write',
        'service_keys:read',
        'service_keys:write',
        'members:read',
        'audit:read',
      ]);
      expect(viaSession.body.agent.map((p: { name: string }) => p.name)).toEqual(['project:read', 'tasks:read', 'tasks:write', 'tasks:delete']);
      await api().get('/api/permissions').auth(key.key, { type: 'bearer' }).expect(200, expected);
    });

    it('needs a credential', async () => {
      await api().get('/api/permissions').expect(401);
    });
  });
});
