import { createProject } from './factories';
import { listToolsRaw } from './helpers/mcp-raw';
import { dashboardApp, DashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

describe('the dashboard: secrets told apart by their last four characters; a derived token’s expiry', () => {
  let t: TestApp;
  let org: DashboardOrganization;

  beforeAll(async () => {
    ({ t, org } = await dashboardApp());
  });
  afterAll(() => t.close());

  const keys = () => `/orgs/${org.organization.id}/service-keys`;

  async function createKey(name: string): Promise<string> {
    await org.admin.page.get(keys());
    const res = await org.admin.page.post(keys(), { name });
    return /service-keys\/([0-9a-f-]{36})/.exec(res.headers.location)![1]!;
  }

  it('derives a token with an expiry day from the form: it works, and the list shows its expiry and last four', async () => {
    const project = await createProject(t.dataSource, org.organization.id, 'Expiry form');
    const keyId = await createKey('expiring bot');
    const form = await org.admin.page.get(`${keys()}/${keyId}`);
    expect(form.text).toContain('<label for="derive-expiry">Expires on (optional)</label>');
    expect(form.text).toContain('type="date" id="derive-expiry" name="expiresAt"');

    const day = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const res = await org.admin.page.post(`${keys()}/${keyId}/tokens`, { projectId: project.id, expiresAt: day });
    expect(res.status).toBe(200);
    const token = /id="project-token" value="(dga_[A-Za-z0-9]+)"/.exec(res.text)![1]!;
    expect((await listToolsRaw(t.baseUrl, token)).status).toBe(200);
    const [row] = await t.dataSource.query('SELECT valid_until FROM agent_tokens WHERE service_key_id = $1', [keyId]);
    expect(new Date(row.valid_until).toISOString()).toBe(`${day}T00:00:00.000Z`);

    const page = await org.admin.page.get(`${keys()}/${keyId}`);
    expect(page.text).toContain('<th scope="col">Secret</th>');
    expect(page.text).toContain(`<td><code>dga_…${token.slice(-4)}</code></td>`);
    expect(page.text).toContain('Active until');
    expect(page.text).not.toContain(token);
  });

  it('refuses a past or malformed expiry next to the field, keeping the choice', async () => {
    const project = await createProject(t.dataSource, org.organization.id, 'Bad expiry form');
    const keyId = await createKey('bad expiry bot');
    await org.admin.page.get(`${keys()}/${keyId}`);
    const past = await org.admin.page.post(`${keys()}/${keyId}/tokens`, { projectId: project.id, expiresAt: '2020-01-01' });
    expect(past.status).toBe(400);
    expect(past.text).toContain('<p class="field-error" id="derive-expiry-error">Choose a day after today, or leave the expiry empty</p>');
    expect(past.text).toContain('value="2020-01-01"');
    expect(past.text).toContain(`<option value="${project.id}" selected>`);
    const garbage = await org.admin.page.post(`${keys()}/${keyId}/tokens`, { projectId: project.id, expiresAt: 'soon' });
    expect(garbage.status).toBe(400);
    expect(garbage.text).toContain('Enter the expiry as a date (year-month-day), or leave it empty');
    const [row] = await t.dataSource.query('SELECT count(*)::int AS n FROM agent_tokens WHERE service_key_id = $1', [keyId]);
    expect(row.n).toBe(0);
  });

  it('lists API keys with their prefix and last four characters', async () => {
    const path = `/orgs/${org.organization.id}/api-keys`;
    await org.admin.page.get(`${path}/new`);
    const created = await org.admin.page.post(path, { name: 'Hinted', permissions: ['projects:read'] });
    expect(created.status).toBe(200);
    const secret = /id="api-key-secret" value="(rk_[A-Za-z0-9]+)"/.exec(created.text)![1]!;
    const list = await org.admin.page.get(path);
    expect(list.text).toContain('<th scope="col">Key</th>');
    expect(list.text).toContain(`<td><code>rk_…${secret.slice(-4)}</code></td>`);
    expect(list.text).not.toContain(secret);
  });
});
