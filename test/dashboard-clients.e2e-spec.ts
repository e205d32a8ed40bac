import request from 'supertest';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { dashboardOrganization } from './helpers/dashboard';
import { startTestApp, TestApp } from './helpers/test-app';

describe('the dashboard: connected clients', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const clients = (id: string) => `/orgs/${id}/clients`;

  /** An organisation with a project, and one client connected by its admin and one by its member. */
  async function connectedOrganization() {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const project = await createProject(t.dataSource, org.organization.id, 'Website relaunch');
    const base = { organizationId: org.organization.id, projectId: project.id };
    const adminClient = await insertConnectedClient(t.dataSource, {
      ...base,
      userId: org.admin.id,
      clientId: 'https://claude.example/oauth/client.json',
      clientName: 'Claude',
      redirectUris: ['https://claude.example/callback'],
      permissions: ['project:read', 'tasks:read', 'tasks:write'],
    });
    const memberClient = await insertConnectedClient(t.dataSource, {
      ...base,
      userId: org.member.id,
      clientName: 'Editor plugin',
      redirectUris: ['http://127.0.0.1:33418/callback', 'vscode://agent/callback'],
      permissions: ['project:read'],
    });
    return { ...org, project, adminClient, memberClient };
  }

  async function mcpStatus(token: string): Promise<number> {
    const res = await request(t.baseUrl)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    return res.status;
  }

  it('says how to connect one when there is none', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const admin = await org.admin.page.get(clients(org.organization.id));
    expect(admin.status).toBe(200);
    expect(admin.text).toContain('No AI client is connected to this organisation yet.');
    expect(admin.text).toContain(`<code>${t.baseUrl}/api/mcp</code>`);
    expect(admin.text).toContain('Client policy: any AI client may connect.');
    const member = await org.member.page.get(clients(org.organization.id));
    expect(member.status).toBe(200);
    expect(member.text).toContain('You have not connected an AI client to this organisation yet.');
    expect(member.text).not.toContain('Client policy');
    expect(member.text).not.toContain('/clients/policy');
  });

  it('shows an admin every connection (client, the host it answers to, project, permissions, who, when), a member their own', async () => {
    const org = await connectedOrganization();
    const admin = await org.admin.page.get(clients(org.organization.id));
    expect(admin.text).toContain('<strong>Claude</strong><br><span class="muted">identified by <code>claude.example</code></span>');
    expect(admin.text).toContain('<strong>Editor plugin</strong><br><span class="muted">answers at <code>127.0.0.1:33418</code>, <code>vscode:</code></span>');
    expect(admin.text).toContain('<td>Website relaunch</td>');
    expect(admin.text).toContain('<code>project:read</code>, <code>tasks:read</code>, <code>tasks:write</code>');
    expect(admin.text).toContain('<th scope="col">Consented by</th>');
    expect(admin.text).toContain(`${org.admin.name}<br><span class="muted">${org.admin.email}</span>`);
    expect(admin.text).toContain(`${org.member.name}<br><span class="muted">${org.member.email}</span>`);
    expect(admin.text).toMatch(/<td><time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time><\/td>/);

    const member = await org.member.page.get(clients(org.organization.id));
    expect(member.text).toContain('Editor plugin');
    expect(member.text).not.toContain('<strong>Claude</strong>');
    expect(member.text).not.toContain('Consented by');
    expect(member.text).toContain(`href="${clients(org.organization.id)}/${org.memberClient.grantId}/disconnect"`);
  });

  it('lets a person disconnect their own client: asks first, then its token is refused at once', async () => {
    const org = await connectedOrganization();
    const path = clients(org.organization.id);
    expect(await mcpStatus(org.memberClient.accessToken)).toBe(200);
    const confirm = await org.member.page.get(`${path}/${org.memberClient.grantId}/disconnect`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Disconnect Editor plugin from Website relaunch?');
    expect(confirm.text).toContain('This ends 1 connection: its 1 access token that still works and its refresh tokens stop working at once');
    const done = await org.member.page.post(`${path}/${org.memberClient.grantId}/disconnect`);
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`${path}?done=disconnected`);
    expect(await mcpStatus(org.memberClient.accessToken)).toBe(401);
    const after = await org.member.page.get(done.headers.location);
    expect(after.text).toContain('Client disconnected.');
    expect(after.text).not.toContain('Editor plugin');
    const [event] = await t.dataSource.query(`SELECT actor_id, metadata FROM audit_events WHERE action = 'grant.revoked' AND target_id = $1`, [org.memberClient.grantId]);
    expect(event).toMatchObject({ actor_id: org.member.id, metadata: { reason: 'revoked_by_user' } });
    // The confirmation of a disconnected client is gone; disconnecting again is harmless.
    expect((await org.member.page.get(`${path}/${org.memberClient.grantId}/disconnect`)).status).toBe(404);
    await org.member.page.get(path);
    expect((await org.member.page.post(`${path}/${org.memberClient.grantId}/disconnect`)).status).toBe(303);
  });

  it("lets an admin disconnect anyone's client, and refuses a member another person's (403)", async () => {
    const org = await connectedOrganization();
    const path = clients(org.organization.id);
    await org.member.page.get(path);
    expect((await org.member.page.get(`${path}/${org.adminClient.grantId}/disconnect`)).status).toBe(403);
    const refused = await org.member.page.post(`${path}/${org.adminClient.grantId}/disconnect`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Only an administrator may disconnect another person&#39;s client');
    expect(await mcpStatus(org.adminClient.accessToken)).toBe(200);

    const confirm = await org.admin.page.get(`${path}/${org.memberClient.grantId}/disconnect`);
    expect(confirm.text).toContain(`This ends 1 connection that ${org.member.name} (${org.member.email}) made`);
    expect((await org.admin.page.post(`${path}/${org.memberClient.grantId}/disconnect`)).status).toBe(303);
    expect(await mcpStatus(org.memberClient.accessToken)).toBe(401);
    const [event] = await t.dataSource.query(`SELECT actor_id, metadata FROM audit_events WHERE action = 'grant.revoked' AND target_id = $1`, [org.memberClient.grantId]);
    expect(event).toMatchObject({ actor_id: org.admin.id, metadata: { reason: 'revoked_by_admin', userId: org.member.id } });
  });

  it("answers 404 for another organisation's pages and connections, and refuses posts without the CSRF token", async () => {
    const org = await connectedOrganization();
    const other = await connectedOrganization();
    const path = clients(org.organization.id);
    expect((await org.admin.page.get(clients(other.organization.id))).status).toBe(404);
    expect((await org.admin.page.get(`${path}/${other.adminClient.grantId}/disconnect`)).status).toBe(404);
    expect((await org.admin.page.get(`${path}/not-an-id/disconnect`)).status).toBe(404);
    await org.admin.page.get(path);
    expect((await org.admin.page.post(`${path}/${other.memberClient.grantId}/disconnect`)).status).toBe(404);
    expect((await org.admin.page.post(`${clients(other.organization.id)}/${other.memberClient.grantId}/disconnect`)).status).toBe(404);
    expect((await org.admin.page.post(`${path}/${org.memberClient.grantId}/disconnect`, {}, null)).status).toBe(403);
    expect((await org.member.page.post(`${path}/${org.memberClient.grantId}/disconnect`, {}, 'x'.repeat(43))).status).toBe(403);
    expect(await mcpStatus(other.memberClient.accessToken)).toBe(200);
    expect(await mcpStatus(org.memberClient.accessToken)).toBe(200);
    const bad = await org.admin.page.get(`${path}?cursor=%25%25`);
    expect(bad.status).toBe(400);
  });

  it("lists and revokes the organisation's connections on REST for admins", async () => {
    const org = await connectedOrganization();
    const api = `/api/organizations/${org.organization.id}/agent-grants`;
    const list = await request(t.baseUrl).get(api).auth(org.admin.session, { type: 'bearer' }).expect(200);
    expect(list.body.nextCursor).toBeNull();
    expect(list.body.items).toEqual([
      {
        id: org.memberClient.grantId,
        client: { id: org.memberClient.clientId, name: 'Editor plugin', kind: 'registered', hosts: ['127.0.0.1:33418', 'vscode:'] },
        project: { id: org.project.id, name: 'Website relaunch' },
        user: { id: org.member.id, name: org.member.name, email: org.member.email },
        permissions: ['project:read'],
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
      expect.objectContaining({
        id: org.adminClient.grantId,
        client: { id: 'https://claude.example/oauth/client.json', name: 'Claude', kind: 'metadata_document', hosts: ['claude.example'] },
      }),
    ]);
    const mine = await request(t.baseUrl).get(`${api}?userId=${org.admin.id}&limit=1`).auth(org.admin.session, { type: 'bearer' }).expect(200);
    expect(mine.body).toEqual({ items: [expect.objectContaining({ id: org.adminClient.grantId })], nextCursor: null });
    const paged = await request(t.baseUrl).get(`${api}?limit=1`).auth(org.admin.session, { type: 'bearer' }).expect(200);
    const rest = await request(t.baseUrl).get(`${api}?limit=1&cursor=${paged.body.nextCursor}`).auth(org.admin.session, { type: 'bearer' }).expect(200);
    expect([...paged.body.items, ...rest.body.items].map((g: { id: string }) => g.id)).toEqual(list.body.items.map((g: { id: string }) => g.id));
    const badUser = await request(t.baseUrl).get(`${api}?userId=someone`).auth(org.admin.session, { type: 'bearer' }).expect(400);
    expect(badUser.body.message).toEqual(['userId must be a user id (UUID)']);

    const revoked = await request(t.baseUrl).post(`${api}/${org.memberClient.grantId}/revoke`).auth(org.admin.session, { type: 'bearer' }).expect(200);
    expect(revoked.body).toEqual({ id: org.memberClient.grantId, status: 'revoked', revokedAt: expect.any(String), revokedTokens: 1 });
    expect(await mcpStatus(org.memberClient.accessToken)).toBe(401);
    const again = await request(t.baseUrl).post(`${api}/${org.memberClient.grantId}/revoke`).auth(org.admin.session, { type: 'bearer' }).expect(200);
    expect(again.body.revokedTokens).toBe(0);
    await request(t.baseUrl).post(`${api}/not-an-id/revoke`).auth(org.admin.session, { type: 'bearer' }).expect(404);
  });
});
