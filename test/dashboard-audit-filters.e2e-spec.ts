import request from 'supertest';
import { signupOverHttp, SignedUp } from './factories/rest';
import { DashboardClient } from './helpers/dashboard';
import { connectClient, MODERN_VERSION } from './helpers/mcp';
import { startTestApp, TestApp } from './helpers/test-app';

/** The "What" column of the audit table's rows. */
function whats(page: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => [...r[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)][2]![1]!.replace(/<[^>]+>/g, '').trim());
}

/** SPEC §10: the audit page filters by project, client, tool, decision and time, and exports a range as OCSF. */
describe('the dashboard: Audit log filters and OCSF export', () => {
  let t: TestApp;
  let admin: SignedUp;
  let page: DashboardClient;
  let website: { id: string };
  const audit = () => `/orgs/${admin.organization.id}/audit`;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await signupOverHttp(t);
    page = new DashboardClient(t.baseUrl, admin.accessToken);
    const bearer = { Authorization: `Bearer ${admin.accessToken}` };
    const org = `/api/organizations/${admin.organization.id}`;
    website = (await request(t.baseUrl).post(`${org}/projects`).set(bearer).send({ name: 'Website' }).expect(201)).body;
    await request(t.baseUrl).post(`${org}/projects`).set(bearer).send({ name: 'Other' }).expect(201);
    const key = (await request(t.baseUrl).post(`${org}/agent-service-keys`).set(bearer).send({ name: 'ci' }).expect(201)).body;
    const derived = (await request(t.baseUrl).post(`${org}/agent-service-keys/${key.id}/tokens`).set(bearer).send({ projectId: website.id }).expect(201)).body;
    const agent = await connectClient(t.baseUrl, MODERN_VERSION, { Authorization: `Bearer ${derived.token}` });
    await agent.client.callTool({ name: 'create_task', arguments: { title: 'One' } });
    await agent.client.callTool({ name: 'list_tasks', arguments: {} });
    await agent.close();
    // The read is batched: wait until it is written.
    while ((await t.dataSource.query(`SELECT 1 FROM audit_events WHERE organization_id = $1 AND action = 'tool.called'`, [admin.organization.id])).length === 0);
  });
  afterAll(() => t.close());

  it('narrows by project, tool and decision', async () => {
    const byProject = await page.get(`${audit()}?project=${website.id}`);
    expect(byProject.status).toBe(200);
    expect(whats(byProject.text).length).toBeGreaterThanOrEqual(3);
    expect(whats(byProject.text)).not.toContain('Created project “Other”');
    const byTool = await page.get(`${audit()}?tool=list_tasks`);
    expect(whats(byTool.text)).toEqual(['Read with the tool list_tasks, in project “Website”']);
    const allowed = await page.get(`${audit()}?decision=allowed`);
    expect(whats(allowed.text)).toHaveLength(2);
    const future = await page.get(`${audit()}?from=2999-01-01T00:00`);
    expect(future.text).toContain('No events match these filters.');
  });

  it('refuses a bad filter naming it, with a 400', async () => {
    const res = await page.get(`${audit()}?decision=maybe`);
    expect(res.status).toBe(400);
    expect(res.text).toContain('id="audit-decision-error"');
    const time = await page.get(`${audit()}?from=yesterday`);
    expect(time.status).toBe(400);
    expect(time.text).toContain('id="audit-from-error"');
  });

  it('downloads the OCSF export of a range, and records the export', async () => {
    while ((await t.dataSource.query(`SELECT 1 FROM audit_events WHERE organization_id = $1 AND seq IS NULL`, [admin.organization.id])).length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const res = await page.get(`${audit()}/export?from=2000-01-01T00:00&to=2999-01-01T00:00`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="audit-${admin.organization.id}.ndjson"`);
    const lines = res.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines.filter((l) => !l.checkpoint).map((l) => l.unmapped.chain.seq)).toEqual(lines.filter((l) => !l.checkpoint).map((_, i) => i + 1));
    const [recorded] = await t.dataSource.query(`SELECT actor_id, metadata FROM audit_events WHERE organization_id = $1 AND action = 'audit.exported'`, [admin.organization.id]);
    expect(recorded).toEqual({ actor_id: admin.user.id, metadata: { format: 'ocsf', from: '2000-01-01T00:00:00.000Z', to: '2999-01-01T00:00:00.000Z' } });
  });
});
