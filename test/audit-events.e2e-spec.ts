import request from 'supertest';
import { createApiKey, createTeam } from './factories/rest';
import { startTestApp, TestApp } from './helpers/test-app';

describe('GET /api/organizations/:orgId/audit-events', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  const api = () => request(t.baseUrl);

  /** Events with chosen times; several share one timestamp so the id breaks the tie. */
  async function seed(organizationId: string) {
    const times = [
      '2026-03-01T10:00:00.000001Z',
      '2026-03-01T10:00:00.000002Z',
      '2026-03-01T10:00:00.000002Z',
      '2026-03-01T10:00:00.000002Z',
      '2026-03-01T10:00:01Z',
      '2026-03-01T10:00:02Z',
      '2026-03-01T10:00:02Z',
    ];
    for (const [i, at] of times.entries()) {
      await t.dataSource.query(
        `INSERT INTO audit_events (organization_id, chain, actor_type, actor_id, action, target_type, target_id, metadata, ip, user_agent, created_at)
         VALUES ($1::uuid, $1::uuid::text, 'user', 'u1', 'member.added', 'user', $2, $3, '127.0.0.1', 'seed', $4)`,
        [organizationId, `target-${i}`, JSON.stringify({ i }), at],
      );
    }
    const rows: { id: string }[] = await t.dataSource.query(
      'SELECT id FROM audit_events WHERE organization_id = $1 ORDER BY created_at DESC, id DESC',
      [organizationId],
    );
    return rows.map((r) => r.id);
  }

  it('answers the item shape, newest first', async () => {
    const team = await createTeam(t);
    await api().post(`/api/organizations/${team.organization.id}/projects`).auth(team.admin.jwt, { type: 'bearer' }).set('User-Agent', 'ua/1').send({ name: 'First' }).expect(201);
    const second = await api().post(`/api/organizations/${team.organization.id}/projects`).auth(team.admin.jwt, { type: 'bearer' }).set('User-Agent', 'ua/2').send({ name: 'Second' }).expect(201);
    const res = await api().get(`/api/organizations/${team.organization.id}/audit-events`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.items).toHaveLength(2);
    expect(res.body.items[0]).toEqual({
      id: expect.any(String),
      organizationId: team.organization.id,
      projectId: second.body.id,
      actorType: 'user',
      actorId: team.admin.id,
      action: 'project.created',
      targetType: 'project',
      targetId: second.body.id,
      metadata: { name: 'Second' },
      ip: expect.any(String),
      userAgent: 'ua/2',
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(res.body.items[1]).toMatchObject({ metadata: { name: 'First' }, userAgent: 'ua/1' });
  });

  it('pages through every event exactly once with an opaque cursor, ties broken by id', async () => {
    const team = await createTeam(t);
    const all = await seed(team.organization.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await api()
        .get(`/api/organizations/${team.organization.id}/audit-events`)
        .query({ limit: 3, ...(cursor ? { cursor } : {}) })
        .auth(team.admin.jwt, { type: 'bearer' })
        .expect(200);
      expect(res.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.items.map((e: { id: string }) => e.id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(pages).toBe(3);
  });

  it('defaults to 50 per page', async () => {
    const team = await createTeam(t);
    await t.dataSource.query(
      `INSERT INTO audit_events (organization_id, chain, actor_type, action) SELECT $1::uuid, $1::uuid::text, 'user', 'member.added' FROM generate_series(1, 51)`,
      [team.organization.id],
    );
    const res = await api().get(`/api/organizations/${team.organization.id}/audit-events`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect(res.body.items).toHaveLength(50);
    expect(typeof res.body.nextCursor).toBe('string');
    const rest = await api()
      .get(`/api/organizations/${team.organization.id}/audit-events`)
      .query({ cursor: res.body.nextCursor })
      .auth(team.admin.jwt, { type: 'bearer' })
      .expect(200);
    expect(rest.body.items).toHaveLength(1);
    expect(rest.body.nextCursor).toBeNull();
  });

  it("shows only the organisation's own events, to an rk_ key with audit:read too", async () => {
    const team = await createTeam(t);
    await seed(team.other.id);
    const key = await createApiKey(t.dataSource, team.organization.id, ['audit:read']);
    const res = await api().get(`/api/organizations/${team.organization.id}/audit-events`).auth(key.key, { type: 'bearer' }).expect(200);
    expect(res.body).toEqual({ items: [], nextCursor: null });
  });

  it.each([
    [{ limit: 0 }, 'limit must not be less than 1'],
    [{ limit: 101 }, 'limit must not be greater than 100'],
    [{ limit: 'ten' }, 'limit must be an integer number'],
    [{ limit: 2.5 }, 'limit must be an integer number'],
    [{ other: 1 }, 'property other should not exist'],
  ])('answers 400 naming the bad query parameter (%o)', async (query, message) => {
    const team = await createTeam(t);
    const res = await api().get(`/api/organizations/${team.organization.id}/audit-events`).query(query).auth(team.admin.jwt, { type: 'bearer' }).expect(400);
    expect(res.body.message).toEqual(expect.arrayContaining([message]));
  });

  it.each(['garbage!', 'bm90LWEtY3Vyc29y', Buffer.from('123.not-a-uuid').toString('base64url')])('answers 400 to a forged cursor %s', async (cursor) => {
    const team = await createTeam(t);
    const res = await api().get(`/api/organizations/${team.organization.id}/audit-events`).query({ cursor }).auth(team.admin.jwt, { type: 'bearer' }).expect(400);
    expect(res.body).toEqual({ statusCode: 400, message: 'cursor is not a cursor this list returned', error: 'Bad Request', code: 'invalid_cursor' });
  });
});
