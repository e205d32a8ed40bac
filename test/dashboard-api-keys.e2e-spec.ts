import request from 'supertest';
import { createApiKey } from './factories/machine';
import { dashboardApp, DashboardOrganization, dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

/** The secret in the read-only field of the page that created it. */
function secretOf(html: string): string {
  const match = /id="api-key-secret" value="(rk_[A-Za-z0-9]+)"/.exec(html);
  if (!match) throw new Error('no secret field in the page');
  return match[1]!;
}

describe('the dashboard: API keys', () => {
  let t: TestApp;
  let org: DashboardOrganization;
  let other: DashboardOrganization;

  beforeAll(async () => {
    ({ t, org, other } = await dashboardApp());
  });
  afterAll(() => t.close());

  const keys = (id: string) => `/orgs/${id}/api-keys`;
  const rest = () => request(t.baseUrl);

  it('says what to do on an empty list, offers the catalogue grouped with descriptions, and shows a created secret once', async () => {
    const fresh = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const path = keys(fresh.organization.id);
    const empty = await fresh.admin.page.get(path);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No API keys yet.');
    expect(empty.text).toContain(`href="${path}/new"`);

    const form = await fresh.admin.page.get(`${path}/new`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="api-key-name">Name</label>');
    for (const group of ['Projects', 'Service keys', 'Members', 'Audit log']) expect(form.text).toContain(`<legend>${group}</legend>`);
    expect(form.text).toContain('value="service_keys:write"');
    expect(form.text).toContain('Create and revoke service keys; derive and revoke project tokens.');
    expect(form.text).toContain('type="date" id="api-key-expiry" name="expiresAt"');

    const expiry = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const created = await fresh.admin.page.post(path, { name: 'CI deploy bot', permissions: ['projects:read', 'members:read'], expiresAt: expiry });
    expect(created.status).toBe(200);
    expect(created.headers.location).toBeUndefined();
    expect(created.headers['set-cookie']).toBeUndefined();
    expect(created.headers['cache-control']).toBe('no-store');
    const secret = secretOf(created.text);
    expect(created.text).toContain(`curl -H &quot;Authorization: Bearer ${secret}&quot; ${t.baseUrl}/api/organizations/${fresh.organization.id}/projects`);

    // The secret works on REST, within its permissions.
    await rest().get(`/api/organizations/${fresh.organization.id}/projects`).auth(secret, { type: 'bearer' }).expect(200);
    await rest().get(`/api/organizations/${fresh.organization.id}/members`).auth(secret, { type: 'bearer' }).expect(200);
    await rest().get(`/api/organizations/${fresh.organization.id}/audit-events`).auth(secret, { type: 'bearer' }).expect(403);
    const [row] = await t.dataSource.query('SELECT expires_at FROM api_keys WHERE organization_id = $1', [fresh.organization.id]);
    expect(new Date(row.expires_at).toISOString()).toBe(`${expiry}T00:00:00.000Z`);

    // Listed with its permissions, never with its secret again.
    const list = await fresh.admin.page.get(path);
    expect(list.text).toContain('CI deploy bot');
    expect(list.text).toContain('<code>projects:read</code>, <code>members:read</code>');
    expect(list.text).toContain(`by ${fresh.admin.name}`);
    expect(list.text).toContain(`<time datetime="${expiry}T00:00:00.000Z">${expiry} 00:00 UTC</time>`);
    expect(list.text).not.toContain(secret);
    const audit = await t.dataSource.query(`SELECT actor_id, ip FROM audit_events WHERE organization_id = $1 AND action = 'api_key.created'`, [fresh.organization.id]);
    expect(audit).toEqual([{ actor_id: fresh.admin.id, ip: expect.any(String) }]);
  });

  it('answers bad input with the field error on the form (400), never a 500, and creates nothing', async () => {
    const path = keys(org.organization.id);
    await org.admin.page.get(`${path}/new`);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const cases: [Record<string, string | string[]>, string, string][] = [
      [{ name: '', permissions: 'projects:read' }, 'api-key-name', 'Enter name'],
      [{ name: 'x'.repeat(101), permissions: 'projects:read' }, 'api-key-name', 'Name must be at most 100 characters'],
      [{ name: ['a', 'b'], permissions: 'projects:read' }, 'api-key-name', 'Name was sent more than once or in the wrong form'],
      [{ name: 'No permissions' }, 'api-key-permissions', 'Choose at least one permission'],
      [{ name: 'Unknown', permissions: ['projects:read', 'api_keys:write'] }, 'api-key-permissions', 'Choose permissions from the list'],
      [{ name: 'Past', permissions: 'projects:read', expiresAt: yesterday }, 'api-key-expiry', 'Choose a day after today, or leave the expiry empty'],
      [{ name: 'Garbled', permissions: 'projects:read', expiresAt: 'next tuesday' }, 'api-key-expiry', 'Enter the expiry as a date (year-month-day), or leave it empty'],
    ];
    for (const [fields, id, message] of cases) {
      const res = await org.admin.page.post(path, fields);
      expect([res.status, id]).toEqual([400, id]);
      expect(res.text).toContain(`<p class="field-error" id="${id}-error">${message}</p>`);
      expect(res.text).toMatch(new RegExp(`aria-describedby="[^"]*${id}-error"[^>]*aria-invalid="true"`));
    }
    const unstorable = await org.admin.page.post(path, { name: 'a\u0000b', permissions: 'projects:read' });
    expect(unstorable.status).toBe(400);
    expect(unstorable.text).toContain('NUL character');
    // A refused form keeps what was chosen.
    const kept = await org.admin.page.post(path, { name: '', permissions: ['audit:read'] });
    expect(kept.text).toMatch(/value="audit:read" [^>]*checked/);
    const rows = await t.dataSource.query('SELECT 1 FROM api_keys WHERE organization_id = $1', [org.organization.id]);
    expect(rows).toEqual([]);
  });

  it('refuses a post without a valid CSRF token or from another site', async () => {
    const path = keys(org.organization.id);
    await org.admin.page.get(`${path}/new`);
    expect((await org.admin.page.post(path, { name: 'Forged', permissions: 'projects:read' }, null)).status).toBe(403);
    expect((await org.admin.page.post(path, { name: 'Forged', permissions: 'projects:read' }, 'x'.repeat(43))).status).toBe(403);
    const key = await createApiKey(t.dataSource, org.organization.id, ['projects:read']);
    expect((await org.admin.page.post(`${path}/${key.id}/revoke`, {}, null)).status).toBe(403);
    const [row] = await t.dataSource.query('SELECT revoked_at FROM api_keys WHERE id = $1', [key.id]);
    expect(row.revoked_at).toBeNull();
    expect(await t.dataSource.query(`SELECT 1 FROM api_keys WHERE name = 'Forged'`)).toEqual([]);
  });

  it('asks before revoking, saying what ends; revoking refuses the key at once', async () => {
    const path = keys(org.organization.id);
    const key = await createApiKey(t.dataSource, org.organization.id, ['projects:read', 'audit:read']);
    await rest().get(`/api/organizations/${org.organization.id}/projects`).auth(key.key, { type: 'bearer' }).expect(200);
    const list = await org.admin.page.get(path);
    expect(list.text).toContain(`href="${path}/${key.id}/revoke" aria-label="Revoke test key"`);
    const confirm = await org.admin.page.get(`${path}/${key.id}/revoke`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Revoke the API key “test key”?');
    expect(confirm.text).toContain('This ends 1 API key, with its 2 permissions (<code>projects:read</code>, <code>audit:read</code>)');
    const revoked = await org.admin.page.post(`${path}/${key.id}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.headers.location).toBe(`${path}?done=revoked`);
    await rest().get(`/api/organizations/${org.organization.id}/projects`).auth(key.key, { type: 'bearer' }).expect(401);
    const after = await org.admin.page.get(revoked.headers.location);
    expect(after.text).toContain('API key revoked.');
    expect(after.text).toMatch(/Revoked <time/);
    expect(after.text).not.toContain(`href="${path}/${key.id}/revoke"`);
    // Confirming again leads back to the list; revoking again stays idempotent.
    expect((await org.admin.page.get(`${path}/${key.id}/revoke`)).headers.location).toBe(path);
    await org.admin.page.get(path);
    expect((await org.admin.page.post(`${path}/${key.id}/revoke`)).status).toBe(303);
  });

  it("answers 404 for another organisation's pages and keys, 403 for a member", async () => {
    const foreign = await createApiKey(t.dataSource, other.organization.id, ['projects:read']);
    const mine = await createApiKey(t.dataSource, org.organization.id, ['projects:read']);
    expect((await org.admin.page.get(keys(other.organization.id))).status).toBe(404);
    expect((await org.admin.page.get(`${keys(other.organization.id)}/new`)).status).toBe(404);
    expect((await org.admin.page.get(`${keys(org.organization.id)}/${foreign.id}/revoke`)).status).toBe(404);
    expect((await org.admin.page.get(`${keys(org.organization.id)}/not-an-id/revoke`)).status).toBe(404);
    await org.admin.page.get(keys(org.organization.id));
    expect((await org.admin.page.post(`${keys(org.organization.id)}/${foreign.id}/revoke`)).status).toBe(404);
    expect((await org.admin.page.post(`${keys(other.organization.id)}/${foreign.id}/revoke`)).status).toBe(404);
    const [row] = await t.dataSource.query('SELECT revoked_at FROM api_keys WHERE id = $1', [foreign.id]);
    expect(row.revoked_at).toBeNull();

    await org.member.page.get(`/orgs/${org.organization.id}/projects`);
    expect((await org.member.page.get(keys(org.organization.id))).status).toBe(403);
    expect((await org.member.page.get(`${keys(org.organization.id)}/new`)).status).toBe(403);
    expect((await org.member.page.get(`${keys(org.organization.id)}/${mine.id}/revoke`)).status).toBe(403);
    expect((await org.member.page.post(keys(org.organization.id), { name: 'Mine', permissions: 'projects:read' })).status).toBe(403);
    expect((await org.member.page.post(`${keys(org.organization.id)}/${mine.id}/revoke`)).status).toBe(403);
    const [still] = await t.dataSource.query('SELECT revoked_at FROM api_keys WHERE id = $1', [mine.id]);
    expect(still.revoked_at).toBeNull();
    expect((await org.member.page.get(`/orgs/${org.organization.id}/projects`)).text).not.toContain('>API keys<');
  });

  it('pages the list by keyset, on the page and on REST alike', async () => {
    const fresh = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    for (let i = 0; i < 27; i++) await createApiKey(t.dataSource, fresh.organization.id, ['projects:read']);
    const path = keys(fresh.organization.id);
    const first = await fresh.admin.page.get(path);
    expect(first.text.match(/aria-label="Revoke test key"/g)).toHaveLength(25);
    const next = /href="([^"]+)" rel="next">Next page</.exec(first.text)![1]!.replace(/&amp;/g, '&');
    const second = await fresh.admin.page.get(next);
    expect(second.text.match(/aria-label="Revoke test key"/g)).toHaveLength(2);
    expect(second.text).toContain(`<a href="${path}">First page</a>`);
    expect(second.text).not.toContain('rel="next"');
    const bad = await fresh.admin.page.get(`${path}?cursor=bm90LWEtY3Vyc29y`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('cursor is not a cursor this list returned');
    expect((await fresh.admin.page.get(`${path}?cursor=a&cursor=b`)).status).toBe(400);

    const api = (query: string) => rest().get(`/api/organizations/${fresh.organization.id}/api-keys${query}`).auth(fresh.admin.session, { type: 'bearer' });
    const p1 = await api('?limit=20').expect(200);
    expect(p1.body.items).toHaveLength(20);
    const p2 = await api(`?limit=20&cursor=${p1.body.nextCursor}`).expect(200);
    expect(p2.body).toEqual({ items: expect.any(Array), nextCursor: null });
    expect(new Set([...p1.body.items, ...p2.body.items].map((k: { id: string }) => k.id)).size).toBe(27);
    expect((await api('?limit=0').expect(400)).body.message).toEqual(['limit must not be less than 1']);
    expect((await api('?cursor=nope').expect(400)).body).toMatchObject({ code: 'invalid_cursor' });
  });
});
