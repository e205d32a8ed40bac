import request from 'supertest';
import { addMember, createUser } from './factories';
import { signupOverHttp, SignedUp } from './factories/rest';
import { DashboardClient, dashboardOrganization } from './helpers/dashboard';
import { connectClient, MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The rows of the audit table: [when, who, what, from where] as text. */
function rows(page: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) =>
    [...r[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) =>
      c[1]!
        .replace(/<br>/g, ' / ')
        .replace(/<[^>]+>/g, '')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&')
        .replace(/&#39;/g, "'")
        .trim(),
    ),
  );
}

function nextLink(page: string): string | undefined {
  return /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(page)?.[1]?.replace(/&amp;/g, '&');
}

describe('the dashboard: Audit log', () => {
  let t: TestApp;
  let admin: SignedUp;
  let page: DashboardClient;
  let memberId: string;
  const org = () => `/api/organizations/${admin.organization.id}`;
  const audit = () => `/orgs/${admin.organization.id}/audit`;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await signupOverHttp(t, { name: 'Ada Admin' });
    page = new DashboardClient(t.baseUrl, admin.accessToken);
    const bearer = { Authorization: `Bearer ${admin.accessToken}` };
    const project = (await request(t.baseUrl).post(`${org()}/projects`).set(bearer).set('User-Agent', CHROME).send({ name: 'Website' }).expect(201)).body;
    const key = (await request(t.baseUrl).post(`${org()}/agent-service-keys`).set(bearer).send({ name: 'ci machine' }).expect(201)).body;
    const derived = (await request(t.baseUrl).post(`${org()}/agent-service-keys/${key.id}/tokens`).set(bearer).send({ projectId: project.id }).expect(201)).body;
    const agent = await connectClient(t.baseUrl, MODERN_VERSION, { Authorization: `Bearer ${derived.token}` });
    await agent.client.callTool({ name: 'create_task', arguments: { title: 'Written by an agent' } });
    await agent.close();
    const rk = (await request(t.baseUrl).post(`${org()}/api-keys`).set(bearer).send({ name: 'deploy bot', permissions: ['projects:write'] }).expect(201)).body;
    await request(t.baseUrl).post(`${org()}/projects`).set('Authorization', `Bearer ${rk.key}`).send({ name: 'Made by a key' }).expect(201);
    const member = await createUser(t.dataSource, { name: 'Max Member' });
    memberId = member.id;
    await addMember(t.dataSource, admin.organization.id, member.id, 'member');
    await page.submit(`/orgs/${admin.organization.id}/members`, `/orgs/${admin.organization.id}/members/${member.id}/role`, { role: 'admin' });
    await page.submit(`/orgs/${admin.organization.id}/members`, `/orgs/${admin.organization.id}/members/invitations`, { email: 'grace@example.test', role: 'member' });
  });
  afterAll(() => t.close());

  it('shows who did what, when and from where, newest first, in words', async () => {
    const res = await page.get(audit());
    expect(res.status).toBe(200);
    const table = rows(res.text);
    expect(table.map((r) => r[2])).toEqual([
      'Invited grace@example.test as member',
      'Changed the role of Max Member from member to admin',
      'Created project “Made by a key”',
      'Created API key “deploy bot”',
      'Used the tool create_task on task, in project “Website”',
      'Derived a project token from service key “ci machine”, in project “Website”',
      'Created service key “ci machine”',
      'Created project “Website”',
      expect.stringMatching(/^Created the organisation “Org /),
    ]);
    const who = table.map((r) => r[1]);
    expect(who[0]).toBe(`Ada Admin / ${admin.user.email}`);
    expect(who[2]).toBe('API key “deploy bot”');
    expect(who[4]).toBe('Service key “ci machine” / through a project token');
    expect(table[7]![3]).toMatch(/^(::ffff:)?127\.0\.0\.1 \/ Chrome 131 on Linux$/);
    expect(res.text).toContain(`title="${CHROME}"`);
    expect(table[0]![0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  });

  it('filters by kind of event and by person, and the filters stay in the page links', async () => {
    const byKind = await page.get(`${audit()}?action=project.created&person=`);
    expect(byKind.status).toBe(200);
    expect(rows(byKind.text).map((r) => r[2])).toEqual(['Created project “Made by a key”', 'Created project “Website”']);
    expect(byKind.text).toContain('<option value="project.created" selected>Project created</option>');
    const agents = await page.get(`${audit()}?action=${encodeURIComponent('capability.*')}`);
    expect(rows(agents.text).map((r) => r[2])).toEqual(['Used the tool create_task on task, in project “Website”']);
    const byPerson = await page.get(`${audit()}?person=${memberId}`);
    expect(rows(byPerson.text).map((r) => r[2])).toEqual(['Changed the role of Max Member from member to admin']);
    expect(byPerson.text).toContain(`<option value="${memberId}" selected>Max Member (`);
    const none = await page.get(`${audit()}?action=member.removed`);
    expect(none.text).toContain('No events match these filters.');

    const bearer = { Authorization: `Bearer ${admin.accessToken}` };
    for (let i = 0; i < 50; i++) await request(t.baseUrl).post(`${org()}/projects`).set(bearer).send({ name: `Bulk ${i}` }).expect(201);
    const first = await page.get(`${audit()}?action=project.created`);
    expect(rows(first.text)).toHaveLength(50);
    const next = nextLink(first.text)!;
    expect(next).toMatch(new RegExp(`^${audit()}\\?action=project.created&cursor=`));
    const second = await page.get(next);
    expect(rows(second.text).map((r) => r[2])).toEqual(['Created project “Made by a key”', 'Created project “Website”']);
    expect(second.text).toContain(`<a href="${audit()}?action=project.created">First page</a>`);
    expect(nextLink(second.text)).toBeUndefined();
  });

  it('answers bad filters with the field error on the page (400), never a 500', async () => {
    const other = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    for (const [query, id, message] of [
      ['action=member.exploded', 'audit-action-error', 'Choose a kind of event from the list'],
      ['action=a&action=b', 'audit-action-error', 'Choose a kind of event from the list'],
      [`person=${other.admin.id}`, 'audit-person-error', 'Choose a person from the list'],
      ['person=not-a-uuid', 'audit-person-error', 'Choose a person from the list'],
    ]) {
      const res = await page.get(`${audit()}?${query}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain(`<p class="field-error" id="${id}">${message}</p>`);
      expect(res.text).toContain('aria-invalid="true"');
    }
    for (const cursor of ['bogus', 'a&cursor=b', Buffer.from('1.2.3').toString('base64url')]) {
      const res = await page.get(`${audit()}?cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('This page link is not one this log gave out.');
    }
  });

  it("answers 404 for another organisation's log and 403 to a member; a new organisation's log says what will appear", async () => {
    const team = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    expect((await team.admin.page.get(audit())).status).toBe(404);
    expect((await team.member.page.get(`/orgs/${team.organization.id}/audit`)).status).toBe(403);
    const empty = await team.admin.page.get(`/orgs/${team.organization.id}/audit`);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('Nothing has happened in this organisation yet.');
    expect(empty.text).not.toContain('rel="next"');
  });
});
