import request from 'supertest';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { dashboardOrganization } from './helpers/dashboard';
import { startTestApp, TestApp } from './helpers/test-app';

describe('the dashboard: which AI clients may connect (client policy)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const policyPath = (id: string) => `/orgs/${id}/clients/policy`;
  const restPolicy = (orgId: string, session: string) =>
    request(t.baseUrl).get(`/api/organizations/${orgId}/client-policy`).auth(session, { type: 'bearer' }).expect(200);

  it('shows "any client" by default, linked from Connected clients', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const list = await org.admin.page.get(`/orgs/${org.organization.id}/clients`);
    expect(list.text).toContain(`<a href="${policyPath(org.organization.id)}">Change which clients may connect</a>`);
    const page = await org.admin.page.get(policyPath(org.organization.id));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Which AI clients may connect</h1>');
    expect(page.text).toMatch(/name="mode" value="any"[^>]* checked/);
    expect(page.text).not.toMatch(/name="mode" value="listed"[^>]* checked/);
    expect(page.text).toContain('Never changed: any client may connect.');
  });

  it('saves "only these clients" with a notice; REST reads the same policy', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const path = policyPath(org.organization.id);
    await org.admin.page.get(path);
    const saved = await org.admin.page.post(path, { mode: 'listed', allowedHosts: ' Claude.AI \r\n\r\nlocalhost:8443\r\nclaude.ai', allowRegisteredClients: 'true' });
    expect(saved.status).toBe(303);
    expect(saved.headers.location).toBe(`${path}?done=saved`);
    const page = await org.admin.page.get(saved.headers.location);
    expect(page.text).toContain('Client policy saved.');
    expect(page.text).toMatch(/name="mode" value="listed"[^>]* checked/);
    expect(page.text).toContain('>claude.ai\nlocalhost:8443</textarea>');
    expect(page.text).toMatch(/name="allowRegisteredClients" value="true"[^>]* checked/);
    expect((await restPolicy(org.organization.id, org.admin.session)).body).toMatchObject({
      mode: 'listed',
      allowedHosts: ['claude.ai', 'localhost:8443'],
      allowRegisteredClients: true,
    });
    const list = await org.admin.page.get(`/orgs/${org.organization.id}/clients`);
    expect(list.text).toContain('Client policy: only clients identified by claude.ai, localhost:8443 and registered clients may connect.');

    await org.admin.page.get(path);
    expect((await org.admin.page.post(path, { mode: 'any', allowedHosts: 'ignored.example' })).status).toBe(303);
    expect((await restPolicy(org.organization.id, org.admin.session)).body).toMatchObject({ mode: 'any', allowedHosts: [], allowRegisteredClients: true });
    const [event] = await t.dataSource.query(
      `SELECT actor_id, metadata FROM audit_events WHERE organization_id = $1 AND action = 'client_policy.updated' ORDER BY created_at LIMIT 1`,
      [org.organization.id],
    );
    expect(event).toMatchObject({ actor_id: org.admin.id, metadata: { mode: 'listed', revokedGrants: 0 } });
  });

  it('says which connections a policy ends and saves it only once confirmed; their tokens are then refused', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const project = await createProject(t.dataSource, org.organization.id);
    const registered = await insertConnectedClient(t.dataSource, {
      userId: org.member.id,
      organizationId: org.organization.id,
      projectId: project.id,
      clientName: 'Editor plugin',
    });
    const admitted = await insertConnectedClient(t.dataSource, {
      userId: org.admin.id,
      organizationId: org.organization.id,
      projectId: project.id,
      clientId: 'https://claude.example/client.json',
      clientName: 'Claude',
    });
    const path = policyPath(org.organization.id);
    await org.admin.page.get(path);
    const confirm = await org.admin.page.post(path, { mode: 'listed', allowedHosts: 'claude.example' });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Save the client policy and end 1 connection?');
    expect(confirm.text).toContain('<li><strong>Editor plugin</strong> (127.0.0.1:8976): 1 connection</li>');
    expect(confirm.text).toContain('<input type="hidden" name="allowedHosts" value="claude.example">');
    expect((await restPolicy(org.organization.id, org.admin.session)).body.mode).toBe('any');

    const saved = await org.admin.page.post(path, { mode: 'listed', allowedHosts: 'claude.example', confirm: 'yes' });
    expect(saved.status).toBe(303);
    expect(saved.headers.location).toBe(`${path}?done=ended`);
    expect((await org.admin.page.get(saved.headers.location)).text).toContain('The connections of the clients it refuses have ended.');
    const mcp = (token: string) =>
      request(t.baseUrl).post('/api/mcp').set('Authorization', `Bearer ${token}`).set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect((await mcp(registered.accessToken)).status).toBe(401);
    expect((await mcp(admitted.accessToken)).status).toBe(200);
  });

  it('answers bad input with the field error on the page (400), never a 500, and saves nothing', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const path = policyPath(org.organization.id);
    await org.admin.page.get(path);
    const noMode = await org.admin.page.post(path, { allowedHosts: 'claude.ai' });
    expect(noMode.status).toBe(400);
    expect(noMode.text).toContain('<p class="field-error" id="policy-mode-error">Choose which clients may connect</p>');
    expect(noMode.text).toContain('<fieldset aria-describedby="policy-mode-error">');
    expect((await org.admin.page.post(path, { mode: 'everyone' })).status).toBe(400);
    expect((await org.admin.page.post(path, { mode: ['any', 'listed'] })).status).toBe(400);
    for (const hosts of ['claude.ai\nhttps://evil.example/x', 'claude.ai\n*.example.com']) {
      const res = await org.admin.page.post(path, { mode: 'listed', allowedHosts: hosts });
      expect(res.status).toBe(400);
      expect(res.text).toContain(
        '<p class="field-error" id="policy-hosts-error">Line 2 is not a host name: give the host of a client_id URL, such as claude.ai (no scheme, path or wildcard)</p>',
      );
      expect(res.text).toContain('aria-describedby="policy-hosts-hint policy-hosts-error" aria-invalid="true"');
      expect(res.text).toMatch(/name="mode" value="listed"[^>]* checked/);
    }
    const tooMany = await org.admin.page.post(path, { mode: 'listed', allowedHosts: Array.from({ length: 101 }, (_, i) => `h${i}.example`).join('\n') });
    expect(tooMany.status).toBe(400);
    expect(tooMany.text).toContain('List at most 100 hosts');
    expect((await org.admin.page.post(path, { mode: 'listed', allowedHosts: ['a.example', 'b.example'] })).status).toBe(400);
    expect((await restPolicy(org.organization.id, org.admin.session)).body).toMatchObject({ mode: 'any', updatedAt: null });
  });

  it("answers 404 for another organisation, 403 for a member, 403 without the CSRF token", async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const other = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    expect((await org.admin.page.get(policyPath(other.organization.id))).status).toBe(404);
    await org.admin.page.get(policyPath(org.organization.id));
    expect((await org.admin.page.post(policyPath(other.organization.id), { mode: 'listed' })).status).toBe(404);
    expect((await org.admin.page.post(policyPath(org.organization.id), { mode: 'listed' }, null)).status).toBe(403);
    await org.member.page.get(`/orgs/${org.organization.id}/clients`);
    expect((await org.member.page.get(policyPath(org.organization.id))).status).toBe(403);
    expect((await org.member.page.post(policyPath(org.organization.id), { mode: 'listed' })).status).toBe(403);
    expect((await restPolicy(org.organization.id, org.admin.session)).body.mode).toBe('any');
    expect((await restPolicy(other.organization.id, other.admin.session)).body.mode).toBe('any');
  });
});
