import request from 'supertest';
import { createProjectWithToken } from './factories';
import { createTeam } from './factories/rest';
import { dashboardOrganization } from './helpers/dashboard';
import { connectClient, MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

/** A right-to-left override, a bidi isolate, a line break, an escape and a left-to-right mark. */
const UNSAFE = ['\u202egnp.exe', 'a\u2066b\u2069', 'line\nbreak', 'bell\u0007', 'mark\u200e'];

/** Names other people see refuse control and bidirectional formatting characters, each with a 400 naming the field. */
describe('names other people see refuse control and bidi formatting characters', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_RATE_LIMIT_PER_HOUR: '100000' });
  });
  afterAll(() => t.close());

  const message = (field: string) => [`${field} must not contain control characters or bidirectional formatting characters`];

  it('REST: sign-up, organisations, projects, invitations, API keys and service keys', async () => {
    const team = await createTeam(t);
    const auth = { Authorization: `Bearer ${team.admin.jwt}` };
    const org = `/api/organizations/${team.organization.id}`;
    for (const bad of UNSAFE) {
      const signup = { email: 'bidi@example.test', password: 'a long enough password', name: 'Ada', organizationName: 'Engines' };
      expect((await request(t.baseUrl).post('/api/auth/signup').send({ ...signup, name: bad }).expect(400)).body.message).toEqual(message('name'));
      expect((await request(t.baseUrl).post('/api/auth/signup').send({ ...signup, organizationName: `Org ${bad}` }).expect(400)).body.message).toEqual(
        message('organizationName'),
      );
      expect((await request(t.baseUrl).post('/api/organizations').set(auth).send({ name: `Org ${bad}` }).expect(400)).body.message).toEqual(message('name'));
      expect((await request(t.baseUrl).post(`${org}/projects`).set(auth).send({ name: `P ${bad}` }).expect(400)).body.message).toEqual(message('name'));
      expect((await request(t.baseUrl).post(`${org}/api-keys`).set(auth).send({ name: `K ${bad}`, permissions: ['projects:read'] }).expect(400)).body.message).toEqual(
        message('name'),
      );
      expect((await request(t.baseUrl).post(`${org}/agent-service-keys`).set(auth).send({ name: `S ${bad}` }).expect(400)).body.message).toEqual(message('name'));
    }
    const invitation = await request(t.baseUrl).post(`${org}/members`).set(auth).send({ email: 'ev\u202eil@example.test', role: 'member' }).expect(400);
    expect(invitation.body.message).toEqual(message('email'));
    // Nothing was stored, and ordinary non-Latin names still work.
    expect(await t.dataSource.query(`SELECT 1 FROM users WHERE email = 'bidi@example.test'`)).toEqual([]);
    await request(t.baseUrl).post(`${org}/projects`).set(auth).send({ name: 'مشروع الموقع – Größe 日本' }).expect(201);
  });

  it('the dashboard form names the field, and the MCP tool refuses a task title', async () => {
    const dash = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const res = await dash.admin.page.submit(`/orgs/${dash.organization.id}/projects`, `/orgs/${dash.organization.id}/projects`, { name: 'Site\u202e' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('must not contain control characters or bidirectional formatting characters');

    const { token } = await createProjectWithToken(t.dataSource);
    const client = await connectClient(t.baseUrl, MODERN_VERSION, { Authorization: `Bearer ${token}` });
    try {
      await expect(client.client.callTool({ name: 'create_task', arguments: { title: 'Pay \u202e0001$' } })).rejects.toThrow(
        'Invalid arguments for tool create_task: title: must not contain control characters or bidirectional formatting characters',
      );
      const ok = (await client.client.callTool({ name: 'create_task', arguments: { title: 'Ordinary title' } })) as { isError?: boolean };
      expect(ok.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
