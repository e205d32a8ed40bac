import request from 'supertest';
import { AgentTokenService } from '@app/credentials';
import { addMember, createProject, createUser } from './factories';
import { createSessionUser } from './factories/machine';
import { connectClient } from './factories/oauth';
import { sessionFor } from './factories/rest';
import { dashboardApp, DashboardClient, DashboardOrganization, dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

/** The value of the read-only field a secret is shown in. */
function secretValue(page: string, id: string): string {
  const match = new RegExp(`id="${id}" value="([^"]+)" readonly`).exec(page);
  if (!match) throw new Error(`no read-only field ${id} in the page`);
  return match[1]!.replace(/&amp;/g, '&');
}

describe('the dashboard: Members', () => {
  let t: TestApp;
  let org: DashboardOrganization;
  let other: DashboardOrganization;

  beforeAll(async () => {
    ({ t, org, other } = await dashboardApp());
  });
  afterAll(() => t.close());

  const members = (id: string) => `/orgs/${id}/members`;

  it('lists the members with name, email, role and joined date, the invite form, and an empty state for invitations', async () => {
    const res = await org.admin.page.get(members(org.organization.id));
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Members</h1>');
    for (const person of [org.admin, org.member]) {
      expect(res.text).toContain(`<td>${person.email}</td>`);
      expect(res.text).toContain(`<label class="visually-hidden" for="role-${person.id}">Role of Test User</label>`);
    }
    expect(res.text).toMatch(new RegExp(`id="role-${org.member.id}"[^>]*>.*?<option value="member" selected>Member</option>`, 's'));
    expect(res.text).toMatch(/<time datetime="[^"]+">\d{4}-\d{2}-\d{2}<\/time>/);
    expect(res.text).toContain('<label for="invite-email">Email</label>');
    expect(res.text).toContain('No pending invitations.');
  });

  it('invites: the link is shown once, in the answer to the post only; the invitation is listed and can be withdrawn', async () => {
    const path = members(org.organization.id);
    await org.admin.page.get(path);
    const created = await org.admin.page.post(`${path}/invitations`, { email: 'grace@example.test', role: 'admin' });
    expect(created.status).toBe(200);
    expect(created.headers.location).toBeUndefined();
    expect(created.headers['cache-control']).toBe('no-store');
    const link = secretValue(created.text, 'invitation-link');
    expect(link).toMatch(new RegExp(`^${t.baseUrl}/signup\\?invitation=dgi_`));
    const token = new URL(link).searchParams.get('invitation')!;
    const list = await org.admin.page.get(path);
    expect(list.text).toContain('<td>grace@example.test</td>');
    expect(list.text).not.toContain(token);
    expect((await request(t.baseUrl).get(`/signup?invitation=${token}`)).status).toBe(200);
    const [invitation] = await t.dataSource.query(`SELECT id FROM invitations WHERE organization_id = $1 AND email = 'grace@example.test'`, [org.organization.id]);
    const withdrawn = await org.admin.page.post(`${path}/invitations/${invitation.id}/withdraw`);
    expect(withdrawn.status).toBe(303);
    expect(withdrawn.headers.location).toBe(`${path}?done=withdrawn`);
    const after = await org.admin.page.get(withdrawn.headers.location);
    expect(after.text).toContain('Invitation withdrawn: its link no longer works.');
    expect(after.text).not.toContain('<td>grace@example.test</td>');
    expect((await request(t.baseUrl).get(`/signup?invitation=${token}`)).status).toBe(404);
    const events = await t.dataSource.query(`SELECT action FROM audit_events WHERE target_id = $1 ORDER BY created_at`, [invitation.id]);
    expect(events.map((e: { action: string }) => e.action)).toEqual(['invitation.created', 'invitation.withdrawn']);
  });

  it('withdrawing asks for confirmation first: the list leads to a page naming the invitation, and only its post withdraws', async () => {
    const path = members(org.organization.id);
    await org.admin.page.get(path);
    const created = await org.admin.page.post(`${path}/invitations`, { email: 'confirm-withdraw@example.test', role: 'member' });
    const token = new URL(secretValue(created.text, 'invitation-link')).searchParams.get('invitation')!;
    const [invitation] = await t.dataSource.query(`SELECT id FROM invitations WHERE organization_id = $1 AND email = 'confirm-withdraw@example.test'`, [org.organization.id]);
    const list = await org.admin.page.get(path);
    expect(list.text).toContain(`<form method="get" action="${path}/invitations/${invitation.id}/withdraw">`);
    const confirm = await org.admin.page.get(`${path}/invitations/${invitation.id}/withdraw`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('<h1>Withdraw the invitation of confirm-withdraw@example.test?</h1>');
    expect(confirm.text).toContain('the invitation link no longer works');
    expect(confirm.text).toContain(`<form method="post" action="${path}/invitations/${invitation.id}/withdraw">`);
    // Opening the confirmation changes nothing.
    expect((await request(t.baseUrl).get(`/signup?invitation=${token}`)).status).toBe(200);
    // Another organisation's admin, or a made-up id: 404.
    expect((await other.admin.page.get(`${members(other.organization.id)}/invitations/${invitation.id}/withdraw`)).status).toBe(404);
    expect((await org.admin.page.get(`${path}/invitations/not-an-id/withdraw`)).status).toBe(404);
    const withdrawn = await org.admin.page.post(`${path}/invitations/${invitation.id}/withdraw`);
    expect(withdrawn.status).toBe(303);
    expect((await request(t.baseUrl).get(`/signup?invitation=${token}`)).status).toBe(404);
    expect((await org.admin.page.get(`${path}/invitations/${invitation.id}/withdraw`)).status).toBe(404);
  });

  it('answers bad input with the field error on the page (400), never a 500', async () => {
    const path = members(org.organization.id);
    await org.admin.page.get(path);
    for (const [fields, id, message] of [
      [{ email: '  ', role: 'member' }, 'invite-email-error', 'Enter an email address like name@example.com'],
      [{ email: 'not-an-email', role: 'member' }, 'invite-email-error', 'Enter an email address like name@example.com'],
      [{ email: `${'x'.repeat(250)}@example.test`, role: 'member' }, 'invite-email-error', 'Email must be at most 254 characters'],
      [{ email: 'ok@example.test', role: 'owner' }, 'invite-role-error', 'Choose Admin or Member'],
      [{ email: ['a@example.test', 'b@example.test'], role: 'member' }, 'invite-email-error', 'Email was sent more than once or in the wrong form'],
    ] as const) {
      const res = await org.admin.page.post(`${path}/invitations`, fields as Record<string, string | string[]>);
      expect(res.status).toBe(400);
      expect(res.text).toContain(`<p class="field-error" id="${id}">${message}</p>`);
      expect(res.text).toContain('aria-invalid="true"');
    }
    const role = await org.admin.page.post(`${path}/${org.member.id}/role`, { role: 'owner' });
    expect(role.status).toBe(400);
    expect(role.text).toContain(`<p class="field-error" id="role-${org.member.id}-error">Choose Admin or Member</p>`);
    const handOver = await org.admin.page.post(`${path}/${org.member.id}/remove`, { handOver: 'maybe' });
    expect(handOver.status).toBe(400);
    expect((await org.admin.page.get(`${path}?cursor=not-a-cursor`)).status).toBe(400);
    expect((await org.admin.page.get(`${path}?cursor=a&cursor=b`)).status).toBe(400);
  });

  it('changes a role; the last admin can be neither demoted nor removed, with a clear message', async () => {
    const team = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const path = members(team.organization.id);
    await team.admin.page.get(path);
    const demoteSelf = await team.admin.page.post(`${path}/${team.admin.id}/role`, { role: 'member' });
    expect(demoteSelf.status).toBe(409);
    expect(demoteSelf.text).toContain('is the only admin of');
    expect(demoteSelf.text).toContain('make another member an admin first');
    const confirm = await team.admin.page.get(`${path}/${team.admin.id}/remove`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('make another member an admin first');
    expect(confirm.text).not.toContain(`action="${path}/${team.admin.id}/remove"`);
    const removeSelf = await team.admin.page.post(`${path}/${team.admin.id}/remove`);
    expect(removeSelf.status).toBe(409);
    expect(removeSelf.text).toContain('make another member an admin first');
    const promoted = await team.admin.page.post(`${path}/${team.member.id}/role`, { role: 'admin' });
    expect(promoted.status).toBe(303);
    expect(promoted.headers.location).toBe(`${path}?done=role-changed`);
    const list = await team.admin.page.get(promoted.headers.location);
    expect(list.text).toContain('Role changed.');
    expect(list.text).toMatch(new RegExp(`id="role-${team.member.id}"[^>]*>.*?<option value="admin" selected>Admin</option>`, 's'));
    expect((await team.member.page.get(path)).status).toBe(200);
  });

  it('demoting an admin who created API keys asks first and offers to take the keys over, as removal does', async () => {
    const team = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const path = members(team.organization.id);
    const keyOf = async (admin: { session: string }, name: string) =>
      (
        await request(t.baseUrl)
          .post(`/api/organizations/${team.organization.id}/api-keys`)
          .auth(admin.session, { type: 'bearer' })
          .send({ name, permissions: ['projects:read'] })
          .expect(201)
      ).body as { id: string; key: string };
    const apiKeyRow = async (id: string) =>
      (await t.dataSource.query(`SELECT created_by, revoked_at FROM api_keys WHERE id = $1`, [id]))[0] as { created_by: string; revoked_at: Date | null };

    // Handing over: the keys keep working, now created by the acting admin.
    const bea = await createSessionUser(t.app, t.dataSource, team.organization.id, 'admin');
    const beaKey = await keyOf(bea, 'Bea deploy key');
    await team.admin.page.get(path);
    const asked = await team.admin.page.post(`${path}/${bea.id}/role`, { role: 'member' });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain(`Make Test User a member of ${team.organization.name}?`);
    expect(asked.text).toContain('“Bea deploy key”');
    expect(asked.text).toContain('Take over their API keys instead');
    expect(asked.text).toContain('<input type="hidden" name="confirm" value="true">');
    expect((await t.dataSource.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [team.organization.id, bea.id]))[0].role).toBe('admin');
    const handedOver = await team.admin.page.post(`${path}/${bea.id}/role`, { role: 'member', confirm: 'true', handOver: 'true' });
    expect(handedOver.status).toBe(303);
    expect(handedOver.headers.location).toBe(`${path}?done=role-changed`);
    expect(await apiKeyRow(beaKey.id)).toEqual({ created_by: team.admin.id, revoked_at: null });
    await request(t.baseUrl).get(`/api/organizations/${team.organization.id}/projects`).auth(beaKey.key, { type: 'bearer' }).expect(200);
    const [event] = await t.dataSource.query(`SELECT metadata FROM audit_events WHERE action = 'member.role_changed' AND target_id = $1`, [bea.id]);
    expect(event.metadata.apiKeysHandedOver).toEqual([beaKey.id]);

    // Without the box: the keys are revoked.
    const cy = await createSessionUser(t.app, t.dataSource, team.organization.id, 'admin');
    const cyKey = await keyOf(cy, 'Cy key');
    await team.admin.page.get(path);
    expect((await team.admin.page.post(`${path}/${cy.id}/role`, { role: 'member' })).status).toBe(200);
    expect((await team.admin.page.post(`${path}/${cy.id}/role`, { role: 'member', confirm: 'true', handOver: 'maybe' })).status).toBe(400);
    expect((await team.admin.page.post(`${path}/${cy.id}/role`, { role: 'member', confirm: 'true' })).status).toBe(303);
    expect((await apiKeyRow(cyKey.id)).revoked_at).not.toBeNull();
    await request(t.baseUrl).get(`/api/organizations/${team.organization.id}/projects`).auth(cyKey.key, { type: 'bearer' }).expect(401);
  });

  it('issues a password-reset link, shown once, never in a Location header', async () => {
    const path = members(org.organization.id);
    await org.admin.page.get(path);
    const res = await org.admin.page.post(`${path}/${org.member.id}/reset-link`);
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    const link = secretValue(res.text, 'reset-link');
    expect(link).toMatch(new RegExp(`^${t.baseUrl}/reset-password\\?token=dgp_`));
    expect((await org.admin.page.get(path)).text).not.toContain(new URL(link).searchParams.get('token')!);
    expect((await request(t.baseUrl).get(new URL(link).pathname + new URL(link).search)).status).toBe(200);
    const [event] = await t.dataSource.query(`SELECT actor_id, metadata FROM audit_events WHERE action = 'password_reset.issued' AND target_id = $1`, [org.member.id]);
    expect(event.actor_id).toBe(org.admin.id);
    expect(JSON.stringify(event)).not.toContain('dgp_');
  });

  it('says what a removal ends and what stays, then removes: their session no longer opens the organisation', async () => {
    const connected = await connectClient(t);
    const organizationId = connected.organization.id;
    const admin = await createSessionUser(t.app, t.dataSource, organizationId, 'admin');
    const page = new DashboardClient(t.baseUrl, admin.session);
    const path = members(organizationId);
    // The person becomes an admin who made an rk_ key, a service key and a derived token.
    await addMember(t.dataSource, organizationId, (await createUser(t.dataSource)).id, 'member');
    await t.dataSource.query(`UPDATE memberships SET role = 'admin' WHERE user_id = $1`, [connected.user.id]);
    const jwt = await sessionFor(t, connected.user.id);
    const api = `/api/organizations/${organizationId}`;
    await request(t.baseUrl).post(`${api}/api-keys`).auth(jwt, { type: 'bearer' }).send({ name: 'nightly export', permissions: ['members:read'] }).expect(201);
    const key = (await request(t.baseUrl).post(`${api}/agent-service-keys`).auth(jwt, { type: 'bearer' }).send({ name: 'ci machine' }).expect(201)).body;
    const project = await createProject(t.dataSource, organizationId);
    const derived = (await request(t.baseUrl).post(`${api}/agent-service-keys/${key.id}/tokens`).auth(jwt, { type: 'bearer' }).send({ projectId: project.id }).expect(201)).body;

    const confirm = await page.get(`${path}/${connected.user.id}/remove`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`Remove ${connected.user.name} from ${connected.organization.name}?`);
    expect(confirm.text).toContain('their signed-in sessions no longer open its pages or its API');
    expect(confirm.text).toContain(`1 connected AI client they approved in ${connected.organization.name}: disconnected, their tokens refused.`);
    expect(confirm.text).toContain('1 API key they created (“nightly export”): revoked, unless you take them over below.');
    expect(confirm.text).toContain('1 service key they created (“ci machine”), and the 1 project token derived from them: they keep working');
    expect(confirm.text).toContain('Take over their API keys instead');
    // Nothing has changed yet.
    expect(await t.app.get(AgentTokenService).resolve(connected.accessToken)).not.toBeNull();

    const removed = await page.post(`${path}/${connected.user.id}/remove`);
    expect(removed.status).toBe(303);
    expect(removed.headers.location).toBe(`${path}?done=removed`);
    expect((await page.get(removed.headers.location)).text).toContain('Member removed: their access to this organisation has ended.');
    expect((await new DashboardClient(t.baseUrl, jwt).get(`/orgs/${organizationId}/projects`)).status).toBe(404);
    expect(await t.app.get(AgentTokenService).resolve(connected.accessToken)).toBeNull();
    expect(await t.app.get(AgentTokenService).resolve(derived.token)).not.toBeNull();
    expect((await page.get(`${path}/${connected.user.id}/remove`)).status).toBe(404);
  });

  it("answers 404 for another organisation's members, invitations and pages", async () => {
    const path = members(org.organization.id);
    expect((await org.admin.page.get(members(other.organization.id))).status).toBe(404);
    expect((await org.admin.page.get(`${path}/${other.member.id}/remove`)).status).toBe(404);
    await org.admin.page.get(path);
    expect((await org.admin.page.post(`${path}/${other.member.id}/role`, { role: 'admin' })).status).toBe(404);
    expect((await org.admin.page.post(`${path}/${other.member.id}/reset-link`)).status).toBe(404);
    expect((await org.admin.page.post(`${path}/${other.member.id}/remove`)).status).toBe(404);
    expect((await org.admin.page.post(`${path}/not-a-uuid/remove`)).status).toBe(404);
    await other.admin.page.get(members(other.organization.id));
    const foreign = await other.admin.page.post(`${members(other.organization.id)}/invitations`, { email: 'x@example.test', role: 'member' });
    const token = new URL(secretValue(foreign.text, 'invitation-link')).searchParams.get('invitation')!;
    const [invitation] = await t.dataSource.query(`SELECT id FROM invitations WHERE organization_id = $1`, [other.organization.id]);
    expect((await org.admin.page.post(`${path}/invitations/${invitation.id}/withdraw`)).status).toBe(404);
    expect((await request(t.baseUrl).get(`/signup?invitation=${token}`)).status).toBe(200);
  });

  it("refuses a member's attempts (403) and posts without a valid CSRF token (403)", async () => {
    const path = members(org.organization.id);
    expect((await org.member.page.get(path)).status).toBe(403);
    expect((await org.member.page.get(`${path}/invitations`)).status).toBe(403);
    expect((await org.member.page.get(`${path}/${org.admin.id}/remove`)).status).toBe(403);
    await org.member.page.get(`/orgs/${org.organization.id}/projects`);
    for (const [action, fields] of [
      ['invitations', { email: 'm@example.test', role: 'admin' }],
      [`${org.admin.id}/role`, { role: 'member' }],
      [`${org.admin.id}/reset-link`, {}],
      [`${org.admin.id}/remove`, {}],
    ] as const) {
      expect((await org.member.page.post(`${path}/${action}`, fields)).status).toBe(403);
    }
    await org.admin.page.get(path);
    for (const csrf of [null, 'x'.repeat(43)]) {
      expect((await org.admin.page.post(`${path}/invitations`, { email: 'forged@example.test', role: 'admin' }, csrf)).status).toBe(403);
      expect((await org.admin.page.post(`${path}/${org.member.id}/role`, { role: 'admin' }, csrf)).status).toBe(403);
      expect((await org.admin.page.post(`${path}/${org.member.id}/reset-link`, {}, csrf)).status).toBe(403);
      expect((await org.admin.page.post(`${path}/${org.member.id}/remove`, {}, csrf)).status).toBe(403);
    }
    expect(await t.dataSource.query(`SELECT 1 FROM invitations WHERE email = 'forged@example.test' OR email = 'm@example.test'`)).toEqual([]);
    expect(await t.dataSource.query(`SELECT role FROM memberships WHERE user_id = $1`, [org.member.id])).toEqual([{ role: 'member' }]);
  });

  it('pages through members and pending invitations by keyset, like the REST lists', async () => {
    const team = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    for (let i = 0; i < 49; i++) await addMember(t.dataSource, team.organization.id, (await createUser(t.dataSource, { name: `Person ${i}` })).id, 'member');
    const path = members(team.organization.id);
    const first = await team.admin.page.get(path);
    expect(first.text.match(/<tr>\s*<td>/g)).toHaveLength(50);
    const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    expect(next).toMatch(new RegExp(`^${path}\\?cursor=`));
    const second = await team.admin.page.get(next);
    expect(second.text.match(/<tr>\s*<td>/g)).toHaveLength(1);
    expect(second.text).toContain('First page');
    expect(second.text).not.toContain('rel="next"');
    const api = `/api/organizations/${team.organization.id}`;
    const jwt = team.admin.session;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(t.baseUrl).get(`${api}/members`).query({ limit: 20, ...(cursor ? { cursor } : {}) }).auth(jwt, { type: 'bearer' }).expect(200);
      seen.push(...res.body.items.map((m: { userId: string }) => m.userId));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(51);
    expect(new Set(seen).size).toBe(51);
    await request(t.baseUrl).get(`${api}/members`).query({ cursor: 'bogus' }).auth(jwt, { type: 'bearer' }).expect(400);
    for (const email of ['a@example.test', 'b@example.test', 'c@example.test']) {
      await request(t.baseUrl).post(`${api}/members`).auth(jwt, { type: 'bearer' }).send({ email, role: 'member' }).expect(201);
    }
    const page1 = await request(t.baseUrl).get(`${api}/invitations`).query({ status: 'pending', limit: 2 }).auth(jwt, { type: 'bearer' }).expect(200);
    expect(page1.body.items.map((i: { email: string }) => i.email)).toEqual(['c@example.test', 'b@example.test']);
    const page2 = await request(t.baseUrl).get(`${api}/invitations`).query({ status: 'pending', limit: 2, cursor: page1.body.nextCursor }).auth(jwt, { type: 'bearer' }).expect(200);
    expect(page2.body).toEqual({ items: [expect.objectContaining({ email: 'a@example.test', status: 'pending' })], nextCursor: null });
    expect((await request(t.baseUrl).get(`${api}/invitations`).query({ status: 'accepted' }).auth(jwt, { type: 'bearer' }).expect(200)).body.items).toEqual([]);
    await request(t.baseUrl).get(`${api}/invitations`).query({ status: 'lost' }).auth(jwt, { type: 'bearer' }).expect(400);
  });
});
