import request from 'supertest';
import { createProject } from './factories';
import { authorizeCode, registerClient, TestBrowser, tokenRequest } from './factories/oauth';
import { dashboardApp, DashboardOrganization, dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

/** A tools/list at /api/mcp with the token: 200 while it works, 401 once refused. */
async function mcpStatus(baseUrl: string, token: string): Promise<number> {
  const res = await fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await res.text();
  return res.status;
}

describe('the dashboard: Projects (list, create, rename, delete)', () => {
  let t: TestApp;
  let org: DashboardOrganization;
  let other: DashboardOrganization;

  beforeAll(async () => {
    ({ t, org, other } = await dashboardApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' }));
  });
  afterAll(() => t.close());

  const projects = (orgId: string) => `/orgs/${orgId}/projects`;
  const events = (organizationId: string, action: string) =>
    t.dataSource.query(`SELECT actor_id, project_id, metadata FROM audit_events WHERE organization_id = $1 AND action = $2 ORDER BY created_at`, [
      organizationId,
      action,
    ]);

  it('renames a project from its form: the list says so and shows the new name, audited with the former name', async () => {
    const project = await createProject(t.dataSource, org.organization.id, 'Before <rename>');
    const list = await org.admin.page.get(projects(org.organization.id));
    expect(list.text).toContain(`href="${projects(org.organization.id)}/${project.id}/rename" aria-label="Rename Before &lt;rename&gt;"`);
    const form = await org.admin.page.get(`${projects(org.organization.id)}/${project.id}/rename`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('value="Before &lt;rename&gt;"');
    expect(form.text).toContain('<label for="project-name">Project name</label>');
    const renamed = await org.admin.page.post(`${projects(org.organization.id)}/${project.id}/rename`, { name: '  After rename ' });
    expect(renamed.status).toBe(303);
    expect(renamed.headers.location).toBe(`${projects(org.organization.id)}?done=renamed`);
    const after = await org.admin.page.get(renamed.headers.location);
    expect(after.text).toContain('Project renamed.');
    expect(after.text).toContain('<td>After rename</td>');
    expect(after.text).not.toContain('Before &lt;rename&gt;');
    expect(await events(org.organization.id, 'project.renamed')).toEqual([
      { actor_id: org.admin.id, project_id: project.id, metadata: { previousName: 'Before <rename>', name: 'After rename' } },
    ]);
  });

  it('answers a bad name with the field error on the rename page (400), never a 500', async () => {
    const project = await createProject(t.dataSource, org.organization.id, 'Keeps its name');
    const path = `${projects(org.organization.id)}/${project.id}/rename`;
    await org.admin.page.get(path);
    for (const [name, error] of [
      ['', 'Enter project name'],
      ['   ', 'Enter project name'],
      ['x'.repeat(201), 'Project name must be at most 200 characters'],
    ]) {
      const res = await org.admin.page.post(path, { name });
      expect(res.status).toBe(400);
      expect(res.text).toContain(`<p class="field-error" id="project-name-error">${error}</p>`);
      expect(res.text).toContain('aria-invalid="true" aria-describedby="project-name-error"');
    }
    expect((await org.admin.page.post(path, { name: ['a', 'b'] })).status).toBe(400);
    expect((await org.admin.page.post(path, { name: 'a\u0000b' })).status).toBe(400);
    const [row] = await t.dataSource.query('SELECT name FROM projects WHERE id = $1', [project.id]);
    expect(row.name).toBe('Keeps its name');
  });

  it('before deleting, says what ends (derived tokens, connected clients) and asks; deleting refuses them at once', async () => {
    const orgId = org.organization.id;
    const project = await createProject(t.dataSource, orgId, 'Doomed');
    const rest = (method: 'post', path: string) => request(t.baseUrl)[method](`/api/organizations/${orgId}${path}`).auth(org.admin.session, { type: 'bearer' });
    const derived: string[] = [];
    for (const name of ['ci', 'cron']) {
      const key = (await rest('post', '/agent-service-keys').send({ name }).expect(201)).body as { id: string };
      derived.push(((await rest('post', `/agent-service-keys/${key.id}/tokens`).send({ projectId: project.id }).expect(201)).body as { token: string }).token);
    }
    const browser = new TestBrowser(t.baseUrl);
    expect((await browser.login(org.admin.email, org.admin.password)).status).toBe(303);
    const client = await registerClient(t.baseUrl, { client_name: 'Doomed Client' });
    const { code, verifier, redirectUri } = await authorizeCode(t, { browser, client, projectId: project.id });
    const tokens = await tokenRequest(t.baseUrl, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      resource: `${t.baseUrl}/api/mcp`,
    });
    const accessToken = tokens.body.access_token as string;
    for (const token of [...derived, accessToken]) expect(await mcpStatus(t.baseUrl, token)).toBe(200);

    const list = await org.admin.page.get(projects(orgId));
    expect(list.text).toContain(`href="${projects(orgId)}/${project.id}/delete" aria-label="Delete Doomed"`);
    const confirm = await org.admin.page.get(`${projects(orgId)}/${project.id}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Delete project “Doomed”?');
    expect(confirm.text).toContain('<strong>2 derived tokens</strong>');
    expect(confirm.text).toContain('<strong>1 connected client</strong>');
    expect(confirm.text).toContain(`<form method="post" action="${projects(orgId)}/${project.id}/delete">`);
    // Nothing ended by looking.
    for (const token of [...derived, accessToken]) expect(await mcpStatus(t.baseUrl, token)).toBe(200);

    const noToken = await org.admin.page.post(`${projects(orgId)}/${project.id}/delete`, {}, null);
    expect(noToken.status).toBe(403);
    const deleted = await org.admin.page.post(`${projects(orgId)}/${project.id}/delete`);
    expect(deleted.status).toBe(303);
    expect(deleted.headers.location).toBe(`${projects(orgId)}?done=deleted`);
    const after = await org.admin.page.get(deleted.headers.location);
    expect(after.text).toContain('Project deleted.');
    expect(after.text).not.toContain('Doomed');
    for (const token of [...derived, accessToken]) expect(await mcpStatus(t.baseUrl, token)).toBe(401);
    expect(await events(orgId, 'project.deleted')).toEqual([expect.objectContaining({ actor_id: org.admin.id, project_id: project.id })]);
    expect((await org.admin.page.get(`${projects(orgId)}/${project.id}/delete`)).status).toBe(404);
    await org.admin.page.get(projects(orgId));
    expect((await org.admin.page.post(`${projects(orgId)}/${project.id}/delete`)).status).toBe(404);
  });

  it('says so when nothing ends with the project', async () => {
    const project = await createProject(t.dataSource, org.organization.id, 'Unused');
    const confirm = await org.admin.page.get(`${projects(org.organization.id)}/${project.id}/delete`);
    expect(confirm.text).toContain('<strong>0 derived tokens</strong>');
    expect(confirm.text).toContain('<strong>0 connected clients</strong>');
  });

  it('pages the list by keyset with Next page / First page links; a forged cursor is a 400 page', async () => {
    const { organization, admin } = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    for (let i = 0; i < 27; i++) await createProject(t.dataSource, organization.id, `Paged ${String(i).padStart(2, '0')}`);
    // The documented order: oldest first, projects created in the same instant by id.
    const names = (
      await t.dataSource.query('SELECT name FROM projects WHERE organization_id = $1 ORDER BY created_at, id', [organization.id])
    ).map((r: { name: string }) => r.name);
    const first = await admin.page.get(projects(organization.id));
    const shown = (html: string) => [...html.matchAll(/<td>(Paged \d\d)<\/td>/g)].map((m) => m[1]);
    expect(shown(first.text)).toEqual(names.slice(0, 25));
    expect(first.text).not.toContain('First page');
    const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    expect(next).toMatch(new RegExp(`^${projects(organization.id)}\\?cursor=[A-Za-z0-9_-]+$`));
    const second = await admin.page.get(next);
    expect(second.status).toBe(200);
    expect(shown(second.text)).toEqual(names.slice(25));
    expect(second.text).toContain(`<a href="${projects(organization.id)}">First page</a>`);
    expect(second.text).not.toContain('Next page');
    expect(second.text).toContain('New project');
    const forged = await admin.page.get(`${projects(organization.id)}?cursor=garbage!`);
    expect(forged.status).toBe(400);
    expect(forged.headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await admin.page.get(`${projects(organization.id)}?cursor=a&cursor=b`)).status).toBe(400);
  });

  it("answers 404 for another organisation's projects, 403 for a member's rename or delete, and shows members no actions", async () => {
    const mine = await createProject(t.dataSource, org.organization.id, 'Member sees it');
    const theirs = await createProject(t.dataSource, other.organization.id, 'Not yours');
    // Another organisation's project through one's own organisation, and another organisation's pages.
    for (const action of ['rename', 'delete']) {
      expect((await org.admin.page.get(`${projects(org.organization.id)}/${theirs.id}/${action}`)).status).toBe(404);
      expect((await org.admin.page.get(`${projects(org.organization.id)}/not-a-uuid/${action}`)).status).toBe(404);
      expect((await org.admin.page.get(`${projects(other.organization.id)}/${theirs.id}/${action}`)).status).toBe(404);
    }
    await org.admin.page.get(projects(org.organization.id));
    expect((await org.admin.page.post(`${projects(org.organization.id)}/${theirs.id}/rename`, { name: 'Mine now' })).status).toBe(404);
    expect((await org.admin.page.post(`${projects(org.organization.id)}/${theirs.id}/delete`)).status).toBe(404);
    expect((await org.admin.page.post(`${projects(other.organization.id)}/${theirs.id}/delete`)).status).toBe(404);
    const [row] = await t.dataSource.query('SELECT name, deleted_at FROM projects WHERE id = $1', [theirs.id]);
    expect(row).toEqual({ name: 'Not yours', deleted_at: null });

    const memberList = await org.member.page.get(projects(org.organization.id));
    expect(memberList.status).toBe(200);
    expect(memberList.text).toContain('Member sees it');
    expect(memberList.text).not.toContain('>Rename<');
    expect(memberList.text).not.toContain('>Delete<');
    for (const action of ['rename', 'delete']) {
      expect((await org.member.page.get(`${projects(org.organization.id)}/${mine.id}/${action}`)).status).toBe(403);
      expect((await org.member.page.post(`${projects(org.organization.id)}/${mine.id}/${action}`, { name: 'Member was here' })).status).toBe(403);
    }
    const [kept] = await t.dataSource.query('SELECT name, deleted_at FROM projects WHERE id = $1', [mine.id]);
    expect(kept).toEqual({ name: 'Member sees it', deleted_at: null });
  });

  it('refuses a rename posted without the CSRF token or from another site', async () => {
    const project = await createProject(t.dataSource, org.organization.id, 'Guarded');
    const path = `${projects(org.organization.id)}/${project.id}/rename`;
    await org.admin.page.get(path);
    expect((await org.admin.page.post(path, { name: 'Forged' }, null)).status).toBe(403);
    expect((await org.admin.page.post(path, { name: 'Forged' }, 'x'.repeat(43))).status).toBe(403);
    const page = await org.admin.page.get(path);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const crossSite = await request(t.baseUrl)
      .post(path)
      .set('Cookie', `ag_session=${org.admin.session}`)
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send(new URLSearchParams({ name: 'Forged', csrf }).toString())
      .redirects(0);
    expect(crossSite.status).toBe(403);
    const [row] = await t.dataSource.query('SELECT name FROM projects WHERE id = $1', [project.id]);
    expect(row.name).toBe('Guarded');
  });
});
