import request from 'supertest';
import { createProject } from './factories';
import { dashboardApp, DashboardClient, DashboardOrganization, dashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

describe('the dashboard: entry, sessions, CSRF and organisation boundaries', () => {
  let t: TestApp;
  let org: DashboardOrganization;
  let other: DashboardOrganization;

  beforeAll(async () => {
    ({ t, org, other } = await dashboardApp());
  });
  afterAll(() => t.close());

  const projects = (id: string) => `/orgs/${id}/projects`;

  it('sends anyone without a session to sign in, and back afterwards', async () => {
    const res = await request(t.baseUrl).get('/').redirects(0).expect(303);
    expect(res.headers.location).toBe('/login?next=%2F');
    const deep = await request(t.baseUrl).get(`${projects(org.organization.id)}?x=1`).redirects(0).expect(303);
    expect(deep.headers.location).toBe(`/login?next=${encodeURIComponent(`${projects(org.organization.id)}?x=1`)}`);
    const login = await request(t.baseUrl).get(res.headers.location).expect(200);
    expect(login.text).toMatch(/href="\/signup\?next=%2F"/);
  });

  it('never reads a session from Authorization (pages read only the cookie)', async () => {
    const res = await request(t.baseUrl).get('/').set('Authorization', `Bearer ${org.admin.session}`).redirects(0).expect(303);
    expect(res.headers.location).toMatch(/^\/login/);
  });

  it('opens the first organisation, with the dashboard headers: no framing, no caching, only its own script', async () => {
    const home = await org.admin.page.get('/');
    expect(home.status).toBe(303);
    expect(home.headers.location).toBe(projects(org.organization.id));
    const page = await org.admin.page.get(home.headers.location);
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-frame-options']).toBe('DENY');
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.text).toContain('<script src="/assets/dashboard.js" defer></script>');
    expect(page.text).toContain('Create your first project');
    expect(page.text).toContain('<label for="project-name">Project name</label>');
    const script = await request(t.baseUrl).get('/assets/dashboard.js').expect(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).toContain('navigator.clipboard');
  });

  it('creates a project from the form, and refuses a post without the CSRF token or from another site', async () => {
    const path = projects(org.organization.id);
    await org.admin.page.get(path);
    const noToken = await org.admin.page.post(path, { name: 'Forged' }, null);
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('did not come from this site');
    const wrongToken = await org.admin.page.post(path, { name: 'Forged' }, 'x'.repeat(43));
    expect(wrongToken.status).toBe(403);
    const crossSite = await request(t.baseUrl)
      .post(path)
      .set('Cookie', `ag_session=${org.admin.session}`)
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send(new URLSearchParams({ name: 'Forged', csrf: /name="csrf" value="([^"]+)"/.exec((await org.admin.page.get(path)).text)![1]! }).toString())
      .redirects(0);
    expect(crossSite.status).toBe(403);
    const created = await org.admin.page.post(path, { name: 'Website relaunch' });
    expect(created.status).toBe(303);
    expect(created.headers.location).toBe(`${path}?done=created`);
    const list = await org.admin.page.get(created.headers.location);
    expect(list.text).toContain('Project created.');
    expect(list.text).toContain('Website relaunch');
    expect(list.text).not.toContain('Forged');
  });

  it('answers bad input with the field error on the page, never a 500', async () => {
    const path = projects(org.organization.id);
    await org.admin.page.get(path);
    for (const name of ['', '   ', 'x'.repeat(201)]) {
      const res = await org.admin.page.post(path, { name });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/<p class="field-error" id="project-name-error">[^<]+<\/p>/);
      expect(res.text).toContain('aria-invalid="true"');
    }
    const twice = await org.admin.page.post(path, { name: ['a', 'b'] });
    expect(twice.status).toBe(400);
    const unstorable = await org.admin.page.post(path, { name: 'a\u0000b' });
    expect(unstorable.status).toBe(400);
    expect(unstorable.text).toContain('NUL character');
  });

  it("answers 404 for another organisation's pages, 403 for a member's admin action", async () => {
    const foreign = await org.admin.page.get(projects(other.organization.id));
    expect(foreign.status).toBe(404);
    expect(foreign.headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await org.admin.page.get('/orgs/not-a-uuid/projects')).status).toBe(404);
    const memberView = await org.member.page.get(projects(org.organization.id));
    expect(memberView.status).toBe(200);
    expect(memberView.text).not.toContain('Project name');
    expect(memberView.text).not.toContain('>Service keys<');
    const refused = await org.member.page.post(projects(org.organization.id), { name: 'Not mine to make' });
    expect(refused.status).toBe(403);
    await createProject(t.dataSource, org.organization.id, 'Made elsewhere');
    expect((await org.member.page.get(projects(org.organization.id))).text).toContain('Made elsewhere');
  });

  it('signs out on the server: the old session cookie no longer opens anything', async () => {
    const { admin } = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await admin.page.get('/');
    const page = await admin.page.get((await admin.page.get('/')).headers.location);
    expect(page.status).toBe(200);
    const out = await admin.page.post('/sign-out');
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/login');
    expect((await new DashboardClient(t.baseUrl, admin.session).get('/')).headers.location).toMatch(/^\/login/);
    await request(t.baseUrl).get('/api/me').set('Authorization', `Bearer ${admin.session}`).expect(401);
  });
});
