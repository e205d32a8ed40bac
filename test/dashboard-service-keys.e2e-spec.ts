import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { createProject } from './factories';
import { dashboardApp, DashboardClient, DashboardOrganization, dashboardOrganization } from './helpers/dashboard';
import { callTool } from './helpers/mcp-raw';
import { TestApp } from './helpers/test-app';

const run = promisify(execFile);
type Org = DashboardOrganization;
type Res = request.Response;

/** The text of a page's element as a browser shows it (the page escapes what it prints). */
function unescapeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function secretOf(page: string): string {
  const match = /id="project-token" value="(dga_[A-Za-z0-9]+)"/.exec(page);
  if (!match) throw new Error('no project token on the page');
  return match[1]!;
}

function snippetOf(page: string, id: string): string {
  const match = new RegExp(`<textarea id="${id}"[^>]*>([^<]*)</textarea>`).exec(page);
  if (!match) throw new Error(`no snippet ${id} on the page`);
  return unescapeHtml(match[1]!);
}

describe('the dashboard: Service keys', () => {
  let t: TestApp;
  let org: Org;
  let other: Org;
  /** Every answer the admin's dashboard client received, to check no secret ever left in a header. */
  const answers: Res[] = [];

  beforeAll(async () => {
    ({ t, org, other } = await dashboardApp());
  });
  afterAll(() => t.close());

  const keys = (orgId: string) => `/orgs/${orgId}/service-keys`;

  async function get(client: DashboardClient, path: string): Promise<Res> {
    const res = await client.get(path);
    answers.push(res);
    return res;
  }
  async function post(client: DashboardClient, path: string, fields: Record<string, string | string[]> = {}, csrf?: string | null): Promise<Res> {
    const res = csrf === undefined ? await client.post(path, fields) : await client.post(path, fields, csrf);
    answers.push(res);
    return res;
  }

  /** Creates a key through the form; answers its id. */
  async function createKey(o: Org, name: string): Promise<string> {
    await get(o.admin.page, keys(o.organization.id));
    const res = await post(o.admin.page, keys(o.organization.id), { name });
    expect(res.status).toBe(303);
    const match = new RegExp(`^${keys(o.organization.id)}/([0-9a-f-]{36})\\?done=created$`).exec(res.headers.location);
    expect(match).not.toBeNull();
    return match![1]!;
  }

  async function derive(o: Org, keyId: string, projectId: string): Promise<Res> {
    await get(o.admin.page, `${keys(o.organization.id)}/${keyId}`);
    return post(o.admin.page, `${keys(o.organization.id)}/${keyId}/tokens`, { projectId });
  }

  it('starts empty, saying what a service key is for, and offers "New service key"', async () => {
    const res = await get(org.admin.page, keys(org.organization.id));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('No service keys yet.');
    expect(res.text).toContain('lets a machine');
    expect(res.text).toContain('<h2 id="new-service-key">New service key</h2>');
    expect(res.text).toContain('<label for="service-key-name">Name</label>');
    expect(res.text).toContain('aria-current="page">Service keys</a>');
  });

  it('creates a key from the form; without a project the key page says so and links to Projects', async () => {
    const keyId = await createKey(org, '  nightly sync  ');
    const page = await get(org.admin.page, `${keys(org.organization.id)}/${keyId}?done=created`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Service key created.');
    expect(page.text).toContain('<h1>Service key “nightly sync”</h1>');
    expect(page.text).toContain(`by ${org.admin.name}`);
    expect(page.text).toContain('no project yet');
    expect(page.text).toContain(`href="/orgs/${org.organization.id}/projects"`);
    expect(page.text).toContain('No token derived yet.');
    const list = await get(org.admin.page, keys(org.organization.id));
    expect(list.text).toContain(`<a href="${keys(org.organization.id)}/${keyId}">nightly sync</a>`);
    expect(list.text).toContain('0 live');
    const [event] = await t.dataSource.query(
      `SELECT actor_type, actor_id, target_id, user_agent FROM audit_events WHERE action = 'service_key.created' AND organization_id = $1`,
      [org.organization.id],
    );
    expect(event).toMatchObject({ actor_type: 'user', actor_id: org.admin.id, target_id: keyId });
  });

  it('answers bad input with the field error on the page (400), never a 500', async () => {
    const path = keys(org.organization.id);
    await get(org.admin.page, path);
    for (const name of ['', '   ', 'x'.repeat(201)]) {
      const res = await post(org.admin.page, path, { name });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/<p class="field-error" id="service-key-name-error">[^<]+<\/p>/);
      expect(res.text).toContain('aria-invalid="true"');
      expect(res.text).toContain('aria-describedby="service-key-name-hint service-key-name-error"');
    }
    expect((await post(org.admin.page, path, { name: ['a', 'b'] })).status).toBe(400);
    const unstorable = await post(org.admin.page, path, { name: 'a\u0000b' });
    expect(unstorable.status).toBe(400);
    expect(unstorable.text).toContain('NUL character');

    const keyId = await createKey(org, 'bad input');
    const project = await createProject(t.dataSource, org.organization.id, 'Checked project');
    for (const projectId of ['', 'not-a-uuid']) {
      const res = await derive(org, keyId, projectId);
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/<p class="field-error" id="derive-project-error">Choose one of the projects<\/p>/);
      expect(res.text).toContain('aria-invalid="true"');
    }
    const foreignProject = await createProject(t.dataSource, other.organization.id, 'Not yours');
    const foreign = await derive(org, keyId, foreignProject.id);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toContain('id="derive-project-error"');
    expect(foreign.text).not.toContain('Not yours');

    expect((await derive(org, keyId, project.id)).status).toBe(200);
    const twice = await derive(org, keyId, project.id);
    expect(twice.status).toBe(409);
    expect(twice.text).toMatch(/id="derive-project-error">This key already has a token for that project/);
    expect(twice.text).not.toMatch(/dga_[A-Za-z0-9]{20,}/);

    const [token] = await t.dataSource.query(`SELECT id FROM agent_tokens WHERE service_key_id = $1`, [keyId]);
    const rotate = `${keys(org.organization.id)}/${keyId}/tokens/${token.id}/rotate`;
    for (const overlapSeconds of ['604801', '-1', 'abc', '1.5', '']) {
      await get(org.admin.page, rotate);
      const res = await post(org.admin.page, rotate, { overlapSeconds });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/<p class="field-error" id="overlap-error">[^<]+<\/p>/);
      expect(res.text).not.toMatch(/dga_[A-Za-z0-9]{20,}/);
    }
    for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=%21%21', `?cursor=${Buffer.from('v1.nope').toString('base64url')}`]) {
      expect((await get(org.admin.page, `${keys(org.organization.id)}${query}`)).status).toBe(400);
      expect((await get(org.admin.page, `${keys(org.organization.id)}/${keyId}${query}`)).status).toBe(400);
    }
  });

  it('derives a token: the secret is in the POST’s answer only, with snippets that work as pasted', async () => {
    const project = await createProject(t.dataSource, org.organization.id, 'Website');
    const keyId = await createKey(org, 'deploy bot');
    const keyPage = await get(org.admin.page, `${keys(org.organization.id)}/${keyId}`);
    expect(keyPage.text).toContain('<label for="derive-project">Project</label>');
    expect(keyPage.text).toContain(`<option value="${project.id}">Website</option>`);

    const res = await derive(org, keyId, project.id);
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
    const token = secretOf(res.text);
    expect(res.text).toContain('data-copy="project-token"');
    expect(res.text).toContain('<h1>Token for “Website”</h1>');

    const mcpUrl = `${t.baseUrl}/api/mcp`;
    expect(snippetOf(res.text, 'snippet-claude')).toBe(
      `claude mcp add --transport http agent-gateway-website ${mcpUrl} --header 'Authorization: Bearer ${token}'`,
    );
    // The VS Code and Cursor files hold no secret (teams commit .vscode/mcp.json): a password prompt and an environment variable.
    const vscode = snippetOf(res.text, 'snippet-vscode');
    expect(vscode).not.toContain(token);
    expect(JSON.parse(vscode)).toMatchObject({
      inputs: [{ type: 'promptString', id: 'agent-gateway-website-token', password: true }],
      servers: { 'agent-gateway-website': { type: 'http', url: mcpUrl, headers: { Authorization: 'Bearer ${input:agent-gateway-website-token}' } } },
    });
    const cursor = snippetOf(res.text, 'snippet-cursor');
    expect(cursor).not.toContain(token);
    expect(JSON.parse(cursor)).toEqual({
      mcpServers: { 'agent-gateway-website': { url: mcpUrl, headers: { Authorization: 'Bearer ${env:AGENT_GATEWAY_WEBSITE_TOKEN}' } } },
    });
    expect(snippetOf(res.text, 'snippet-cursor-env')).toBe(`export AGENT_GATEWAY_WEBSITE_TOKEN=${token}`);
    // The curl snippet, run as pasted, lists the tools.
    const curl = snippetOf(res.text, 'snippet-curl');
    expect(curl).toContain(`-H 'Authorization: Bearer ${token}'`);
    const { stdout } = await run('bash', ['-c', `${curl} --silent --show-error --fail-with-body`], { timeout: 15_000 });
    const data = JSON.parse(stdout.split('\n').find((l) => l.startsWith('data: '))!.slice(6));
    expect(data.result.tools.map((tool: { name: string }) => tool.name)).toEqual(
      expect.arrayContaining(['get_project', 'list_tasks', 'create_task', 'delete_task']),
    );
    const called = await callTool(t.baseUrl, token, 'legacy', 'get_project', {});
    expect(called.status).toBe(200);
    expect(called.body.result?.structuredContent).toMatchObject({ id: project.id, name: 'Website' });

    // Reloading the key page or the list never shows it again.
    for (const path of [`${keys(org.organization.id)}/${keyId}`, keys(org.organization.id)]) {
      const again = await get(org.admin.page, path);
      expect(again.status).toBe(200);
      expect(again.text).not.toContain(token);
      expect(again.text).not.toMatch(/dga_[A-Za-z0-9]{20,}/);
    }
    const listed = await get(org.admin.page, `${keys(org.organization.id)}/${keyId}`);
    expect(listed.text).toMatch(/<td>Website<\/td>\s*<td>Active<\/td>/);
    expect(listed.text).toContain('aria-label="Rotate the token for Website"');
    expect((await get(org.admin.page, keys(org.organization.id))).text).toContain('1 live');
  });

  it('rotates a token with the chosen overlap (new secret shown once), revokes one, then revokes the key', async () => {
    const project = await createProject(t.dataSource, org.organization.id, 'Billing');
    const keyId = await createKey(org, 'billing sync');
    const first = secretOf((await derive(org, keyId, project.id)).text);
    const [{ id: firstId }] = await t.dataSource.query(`SELECT id FROM agent_tokens WHERE service_key_id = $1`, [keyId]);
    const keyPath = `${keys(org.organization.id)}/${keyId}`;

    const form = await get(org.admin.page, `${keyPath}/tokens/${firstId}/rotate`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="overlap">The current token keeps working for</label>');
    expect(form.text).toContain('<option value="86400" selected>24 hours</option>');
    const rotated = await post(org.admin.page, `${keyPath}/tokens/${firstId}/rotate`, { overlapSeconds: '3600' });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.location).toBeUndefined();
    const second = secretOf(rotated.text);
    expect(second).not.toBe(first);
    expect(rotated.text).toContain('The previous token keeps working until');
    for (const secret of [first, second]) expect((await callTool(t.baseUrl, secret, 'legacy', 'get_project', {})).status).toBe(200);
    const page = await get(org.admin.page, keyPath);
    expect(page.text).toMatch(/Rotating out until <time datetime="[^"]+">/);
    expect(page.text).not.toContain(second);

    const confirm = await get(org.admin.page, `${keyPath}/tokens/${firstId}/revoke`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Revoke the token for “Billing”?');
    const revoked = await post(org.admin.page, `${keyPath}/tokens/${firstId}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.headers.location).toBe(`${keyPath}?done=token-revoked`);
    expect((await callTool(t.baseUrl, first, 'legacy', 'get_project', {})).status).toBe(401);
    expect((await callTool(t.baseUrl, second, 'legacy', 'get_project', {})).status).toBe(200);

    const confirmKey = await get(org.admin.page, `${keyPath}/revoke`);
    expect(confirmKey.status).toBe(200);
    expect(confirmKey.text).toContain('1 derived token ends with it');
    const gone = await post(org.admin.page, `${keyPath}/revoke`);
    expect(gone.status).toBe(303);
    expect(gone.headers.location).toBe(`${keys(org.organization.id)}?done=revoked`);
    expect((await callTool(t.baseUrl, second, 'legacy', 'get_project', {})).status).toBe(401);
    const list = await get(org.admin.page, gone.headers.location);
    expect(list.text).toContain('Service key revoked.');
    expect(list.text).toContain('billing sync</a> <span class="muted">(revoked)</span>');
    const after = await get(org.admin.page, keyPath);
    expect(after.text).toContain('Revoked <time');
    expect(after.text).not.toContain('Derive a token');
    expect(after.text).not.toContain('Revoke service key');
  });

  it('pages the keys and a key’s tokens with limit and cursor, like REST', async () => {
    const o = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const made = [await createKey(o, 'first'), await createKey(o, 'second'), await createKey(o, 'third')];
    const base = keys(o.organization.id);
    const one = await get(o.admin.page, `${base}?limit=2`);
    const shown = (text: string) => made.filter((id) => text.includes(`href="${base}/${id}"`));
    expect(shown(one.text)).toHaveLength(2);
    const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(one.text);
    expect(next).not.toBeNull();
    const two = await get(o.admin.page, unescapeHtml(next![1]!));
    expect(two.status).toBe(200);
    expect(shown(two.text)).toHaveLength(1);
    expect(new Set([...shown(one.text), ...shown(two.text)]).size).toBe(3);
    expect(two.text).toContain(`<a href="${base}?limit=2">First page</a>`);
    expect(two.text).not.toContain('rel="next"');

    const keyId = made[0]!;
    for (let i = 0; i < 3; i++) expect((await derive(o, keyId, (await createProject(t.dataSource, o.organization.id, `P${i}`)).id)).status).toBe(200);
    const tokens = await get(o.admin.page, `${base}/${keyId}?limit=2`);
    expect(tokens.text.match(/aria-label="Revoke the token for P\d"/g)).toHaveLength(2);
    const more = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(tokens.text);
    const rest = await get(o.admin.page, unescapeHtml(more![1]!));
    expect(rest.text.match(/aria-label="Revoke the token for P\d"/g)).toHaveLength(1);
  });

  describe('boundaries', () => {
    let foreignKey: string;
    let foreignToken: string;
    let ownKey: string;
    let ownToken: string;

    beforeAll(async () => {
      foreignKey = await createKey(other, 'theirs');
      const p = await createProject(t.dataSource, other.organization.id, 'Their project');
      expect((await derive(other, foreignKey, p.id)).status).toBe(200);
      [{ id: foreignToken }] = await t.dataSource.query(`SELECT id FROM agent_tokens WHERE service_key_id = $1`, [foreignKey]);
      ownKey = await createKey(org, 'ours');
      const q = await createProject(t.dataSource, org.organization.id, 'Our project');
      expect((await derive(org, ownKey, q.id)).status).toBe(200);
      [{ id: ownToken }] = await t.dataSource.query(`SELECT id FROM agent_tokens WHERE service_key_id = $1`, [ownKey]);
    });

    const routes = (orgId: string, keyId: string, tokenId: string): [method: 'GET' | 'POST', path: string, fields?: Record<string, string>][] => [
      ['GET', `${keys(orgId)}/${keyId}`],
      ['GET', `${keys(orgId)}/${keyId}/revoke`],
      ['POST', `${keys(orgId)}/${keyId}/revoke`],
      ['POST', `${keys(orgId)}/${keyId}/tokens`, { projectId: '00000000-0000-4000-8000-000000000000' }],
      ['GET', `${keys(orgId)}/${keyId}/tokens/${tokenId}/rotate`],
      ['POST', `${keys(orgId)}/${keyId}/tokens/${tokenId}/rotate`, { overlapSeconds: '0' }],
      ['GET', `${keys(orgId)}/${keyId}/tokens/${tokenId}/revoke`],
      ['POST', `${keys(orgId)}/${keyId}/tokens/${tokenId}/revoke`],
    ];

    async function liveTokens(keyId: string): Promise<number> {
      const [row] = await t.dataSource.query(`SELECT count(*)::int AS n FROM agent_tokens WHERE service_key_id = $1 AND revoked_at IS NULL`, [keyId]);
      return row.n;
    }

    it("answers 404 for another organisation's key and token ids, under either organisation's path", async () => {
      await get(org.admin.page, keys(org.organization.id));
      const attempts = [
        ...routes(org.organization.id, foreignKey, foreignToken),
        ...routes(org.organization.id, ownKey, foreignToken).filter(([, path]) => path.includes('/tokens/')),
        ...routes(org.organization.id, 'not-a-uuid', 'not-a-uuid'),
        ...routes(other.organization.id, foreignKey, foreignToken),
        ['GET', keys(other.organization.id)] as const,
        ['POST', keys(other.organization.id), { name: 'sneaky' }] as const,
      ];
      for (const [method, path, fields] of attempts) {
        const res = method === 'GET' ? await get(org.admin.page, path) : await post(org.admin.page, path, fields ?? {});
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      }
      expect(await liveTokens(foreignKey)).toBe(1);
      const [theirs] = await t.dataSource.query(`SELECT revoked_at FROM service_keys WHERE id = $1`, [foreignKey]);
      expect(theirs.revoked_at).toBeNull();
    });

    it('answers 403 to a member, for every page and form of the section', async () => {
      await get(org.member.page, `/orgs/${org.organization.id}/projects`);
      const attempts = [
        ['GET', keys(org.organization.id)] as const,
        ['POST', keys(org.organization.id), { name: 'not mine' }] as const,
        ...routes(org.organization.id, ownKey, ownToken),
      ];
      for (const [method, path, fields] of attempts) {
        const res = method === 'GET' ? await org.member.page.get(path) : await org.member.page.post(path, fields ?? {});
        expect([method, path, res.status]).toEqual([method, path, 403]);
        expect(res.text).not.toMatch(/dga_[A-Za-z0-9]{20,}/);
      }
      expect(await liveTokens(ownKey)).toBe(1);
    });

    it('refuses every form post without this session’s CSRF token, or marked cross-site', async () => {
      const posts = [['POST', keys(org.organization.id), { name: 'forged' }] as const, ...routes(org.organization.id, ownKey, ownToken).filter(([m]) => m === 'POST')];
      const csrf = /name="csrf" value="([^"]+)"/.exec((await get(org.admin.page, keys(org.organization.id))).text)![1]!;
      for (const [, path, fields] of posts) {
        for (const token of [null, 'x'.repeat(43), /name="csrf" value="([^"]+)"/.exec((await other.admin.page.get(keys(other.organization.id))).text)![1]!]) {
          const res = await post(org.admin.page, path, fields ?? {}, token);
          expect([path, res.status]).toEqual([path, 403]);
        }
        const crossSite = await request(t.baseUrl)
          .post(path)
          .set('Cookie', `ag_session=${org.admin.session}`)
          .set('Sec-Fetch-Site', 'cross-site')
          .type('form')
          .send(new URLSearchParams({ ...(fields ?? {}), csrf }).toString())
          .redirects(0);
        expect([path, crossSite.status]).toEqual([path, 403]);
      }
      expect(await liveTokens(ownKey)).toBe(1);
      const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM service_keys WHERE name = 'forged'`);
      expect(n).toBe(0);
    });
  });

  it('never put a secret in a Location header or a cookie', () => {
    expect(answers.length).toBeGreaterThan(50);
    for (const res of answers) {
      expect(String(res.headers.location ?? '')).not.toMatch(/dga_[A-Za-z0-9]{20,}/);
      expect(JSON.stringify(res.headers['set-cookie'] ?? [])).not.toMatch(/dga_[A-Za-z0-9]{20,}/);
    }
  });
});
