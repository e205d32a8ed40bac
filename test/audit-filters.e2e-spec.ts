import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { dashboardApp, DashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

/**
 * The credential filter reads each place an id can be (actor, target, a token's key, grant or
 * client) by its own index and merges them: every matching event once, newest first, across pages.
 */
describe('audit events filtered by a credential, across the places its id can be', () => {
  let t: TestApp;
  let org: DashboardOrganization;

  beforeAll(async () => {
    ({ t, org } = await dashboardApp());
  });
  afterAll(() => t.close());

  it('lists every event naming the id once, newest first, page after page', async () => {
    const id = randomUUID();
    const other = randomUUID();
    const orgId = org.organization.id;
    // [actor, target, metadata] of each event, oldest first; the ones naming `id` are expected.
    const shapes: [string | null, string | null, Record<string, string>][] = [
      [id, null, {}],
      [other, id, {}],
      [id, id, {}],
      [other, other, { serviceKeyId: id }],
      [other, other, {}],
      [other, other, { grantId: id }],
      [id, other, { clientId: id }],
      [other, other, { clientId: other }],
      [other, id, {}],
    ];
    const ids: string[] = [];
    for (const [i, [actor, target, metadata]] of shapes.entries()) {
      const [row] = await t.dataSource.query(
        `INSERT INTO audit_events (organization_id, chain, actor_type, actor_id, action, target_type, target_id, metadata, created_at)
         VALUES ($1::uuid, $1::uuid::text, 'user', $2, 'project.renamed', 'project', $3, $4::jsonb, now() - interval '1 hour' + $5 * interval '1 second') RETURNING id`,
        [orgId, actor, target, JSON.stringify(metadata), i],
      );
      if (actor === id || target === id || Object.values(metadata).includes(id)) ids.push(row.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(t.baseUrl)
        .get(`/api/organizations/${orgId}/audit-events`)
        .query({ credential: id, limit: 2, ...(cursor ? { cursor } : {}) })
        .set('Authorization', `Bearer ${org.admin.session}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((e: { id: string }) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    // With another filter as well: only the events of that action among them.
    const none = await request(t.baseUrl)
      .get(`/api/organizations/${orgId}/audit-events`)
      .query({ credential: id, action: 'project.created' })
      .set('Authorization', `Bearer ${org.admin.session}`);
    expect(none.status).toBe(200);
    expect(none.body.items).toEqual([]);
  });
});
