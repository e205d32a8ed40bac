import request from 'supertest';
import { dashboardApp, DashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

describe('the dashboard: a mistyped address', () => {
  let t: TestApp;
  let org: DashboardOrganization;
  let other: DashboardOrganization;

  beforeAll(async () => {
    ({ t, org, other } = await dashboardApp());
  });
  afterAll(() => t.close());

  it('answers a signed-in person with an HTML 404 that keeps the navigation of their organisation', async () => {
    const res = await org.admin.page.get(`/orgs/${org.organization.id}/api-kyes`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('<h1 id="error-title">Page not found</h1>');
    expect(res.text).toContain('<nav class="sections" aria-label="Sections">');
    expect(res.text).toContain(`href="/orgs/${org.organization.id}/api-keys"`);
    expect(res.text).toContain('action="/sign-out"');
    expect(res.text).toContain('<a href="/">Back to the dashboard</a>');
  });

  it('shows no organisation the person does not belong to', async () => {
    const res = await org.admin.page.get(`/orgs/${other.organization.id}/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.text).toContain('Page not found');
    expect(res.text).not.toContain(other.organization.id);
    expect(res.text).not.toContain('<nav class="sections"');
  });

  it('answers anyone without a session with a plain HTML 404, at any page-like path', async () => {
    for (const path of ['/dashbord', '/orgs/x/y/z', '/login/typo']) {
      const res = await request(t.baseUrl).get(path).redirects(0);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('Page not found');
      expect(res.text).not.toContain('action="/sign-out"');
    }
  });

  it('keeps JSON 404s for the API, the discovery documents and the probes', async () => {
    for (const path of ['/api/nothing', '/api/organizations/x/nothing', '/.well-known/nothing', '/health/nothing']) {
      const res = await request(t.baseUrl).get(path).set('Accept', 'text/html');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
    const signedIn = await org.admin.page.get('/api/nothing');
    expect(signedIn.status).toBe(404);
    expect(signedIn.headers['content-type']).toMatch(/^application\/json/);
  });
});
