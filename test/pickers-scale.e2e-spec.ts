import { SessionTokenService } from '@app/people';
import { addMembersInBulk, createProject, createProjectsInBulk, createUser, addMember } from './factories';
import { authorizePath, formChoices, hiddenField, openConsent, pkcePair, redirectParams, registerClient, RegisteredTestClient, TestBrowser } from './factories/oauth';
import { dashboardApp, DashboardOrganization } from './helpers/dashboard';
import { TestApp } from './helpers/test-app';

/** What a page may weigh with 20,000 projects and 2,000 members. */
const PAGE_LIMIT = 200 * 1024;
const PROJECTS = 20_000;
const MEMBERS = 2_000;

/** The values of a select's options (the empty "choose" one left out). */
function optionsOf(html: string, selectId: string): { value: string; label: string }[] {
  const select = new RegExp(`<select id="${selectId}"[^>]*>([\\s\\S]*?)</select>`).exec(html);
  if (!select) throw new Error(`no select ${selectId} in the page`);
  return [...select[1]!.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => ({ value: m[1]!, label: m[2]! })).filter((o) => o.value !== '');
}

describe('pickers in a large organisation: a page of matches and a search, never every project or member', () => {
  let t: TestApp;
  let org: DashboardOrganization;
  let needle: { id: string; name: string };
  let client: RegisteredTestClient;
  const { challenge } = pkcePair();

  beforeAll(async () => {
    ({ t, org } = await dashboardApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' }));
    await createProjectsInBulk(t.dataSource, org.organization.id, PROJECTS);
    await addMembersInBulk(t.dataSource, org.organization.id, MEMBERS);
    // Created last: on no first page.
    needle = await createProject(t.dataSource, org.organization.id, 'Needle in the haystack');
    client = await registerClient(t.baseUrl, { client_name: 'Scale Client', redirect_uris: ['http://127.0.0.1:8976/callback'] });
  }, 120_000);
  afterAll(() => t.close());

  const keyPage = async () => {
    const created = await org.admin.page.submit(`/orgs/${org.organization.id}/service-keys`, `/orgs/${org.organization.id}/service-keys`, { name: `Scale key ${Date.now()}` });
    expect(created.status).toBe(303);
    return created.headers.location!.replace(/\?.*$/, '');
  };

  it('the service-key page offers a page of projects under 200 KB, and its search finds one by name to derive a token for', async () => {
    const key = await keyPage();
    const first = await org.admin.page.get(key);
    expect(first.status).toBe(200);
    expect(Buffer.byteLength(first.text)).toBeLessThan(PAGE_LIMIT);
    const offered = optionsOf(first.text, 'derive-project');
    expect(offered).toHaveLength(25);
    expect(offered.map((o) => o.label)).not.toContain(needle.name);
    expect(first.text).toContain('<label for="derive-project-query">Search by name</label>');
    expect(first.text).toMatch(/rel="next">More projects<\/a>/);

    // The next matches follow the first ones.
    const more = /href="([^"]*projectCursor=[^"]*)" rel="next"/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    const second = await org.admin.page.get(more);
    expect(second.status).toBe(200);
    expect(optionsOf(second.text, 'derive-project')[0]!.label).toBe('Bulk project 26');

    const found = await org.admin.page.get(`${key}?projectQuery=${encodeURIComponent('needle IN the')}`);
    expect(found.status).toBe(200);
    expect(optionsOf(found.text, 'derive-project')).toEqual([{ value: needle.id, label: needle.name }]);
    expect(found.text).toContain('value="needle IN the"');

    // The post is the same as before: the chosen project's id.
    const derived = await org.admin.page.post(`${key}/tokens`, { projectId: needle.id });
    expect(derived.status).toBe(200);
    expect(derived.text).toMatch(/id="project-token" value="dga_/);

    const none = await org.admin.page.get(`${key}?projectQuery=${encodeURIComponent('100% nothing_')}`);
    expect(none.status).toBe(200);
    expect(optionsOf(none.text, 'derive-project')).toEqual([]);
    expect(none.text).toContain('No project’s name contains “100% nothing_”.');
  });

  it('refuses a bad search on the service-key page with a 400 naming the parameter', async () => {
    const key = await keyPage();
    const long = await org.admin.page.get(`${key}?projectQuery=${'x'.repeat(201)}`);
    expect(long.status).toBe(400);
    expect(long.text).toContain('projectQuery must be at most 200 characters');
    const twice = await org.admin.page.get(`${key}?projectQuery=a&projectQuery=b`);
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('projectQuery must be given once');
    const cursor = await org.admin.page.get(`${key}?projectCursor=not-a-cursor`);
    expect(cursor.status).toBe(400);
  });

  it('the audit log offers a page of people under 200 KB, and its search finds a member by email', async () => {
    const audit = `/orgs/${org.organization.id}/audit`;
    const first = await org.admin.page.get(audit);
    expect(first.status).toBe(200);
    expect(Buffer.byteLength(first.text)).toBeLessThan(PAGE_LIMIT);
    expect(optionsOf(first.text, 'audit-person')).toHaveLength(25);

    const found = await org.admin.page.get(`${audit}?personQuery=${encodeURIComponent(org.member.email.toUpperCase())}`);
    expect(found.status).toBe(200);
    expect(optionsOf(found.text, 'audit-person')).toEqual([{ value: org.member.id, label: `${org.member.name} (${org.member.email})` }]);

    // The chosen person stays offered (and filters) whatever the search shows.
    const chosen = await org.admin.page.get(`${audit}?person=${org.member.id}&personQuery=Bulk`);
    expect(chosen.status).toBe(200);
    const offered = optionsOf(chosen.text, 'audit-person');
    expect(offered[0]).toEqual({ value: org.member.id, label: `${org.member.name} (${org.member.email})` });
    expect(chosen.text).toMatch(new RegExp(`<option value="${org.member.id}" selected>`));

    const twice = await org.admin.page.get(`${audit}?personQuery=a&personQuery=b`);
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('personQuery must be given once');
  });

  it('the consent page offers a page of projects under 200 KB, finds one by name, and approving it works as before', async () => {
    const user = await createUser(t.dataSource);
    await addMember(t.dataSource, org.organization.id, user.id, 'member');
    const browser = new TestBrowser(t.baseUrl);
    browser.cookies.set('ag_session', (await t.app.get(SessionTokenService).issue(user.id)).accessToken);
    const params = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'http://127.0.0.1:8976/callback',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'scale-1',
      scope: 'project:read tasks:read',
      resource: `${t.baseUrl}/api/mcp`,
    };
    const first = await openConsent(browser, authorizePath(params));
    expect(Buffer.byteLength(first.html)).toBeLessThan(PAGE_LIMIT);
    expect(formChoices(first.html, 'project_id')).toHaveLength(25);
    expect(first.html).toContain('<label for="consent-project-query">Search projects by name</label>');
    expect(first.html).toContain(`More projects of ${org.organization.name}`);

    const found = await openConsent(browser, `${authorizePath(params)}&project_query=${encodeURIComponent('Haystack')}`);
    expect(formChoices(found.html, 'project_id')).toEqual([{ value: needle.id, checked: true }]);
    // The search form carries the original request, so searching again keeps the client's request.
    expect(hiddenField(found.html, 'state')).toBe('scale-1');

    const approved = await browser.post('/api/agent/oauth/authorize', {
      request_id: found.requestId,
      csrf_token: found.csrfToken,
      project_id: needle.id,
      permissions: ['project:read'],
      decision: 'approve',
    });
    expect(approved.status).toBe(303);
    expect(redirectParams(approved).get('state')).toBe('scale-1');
    expect(redirectParams(approved).get('code')).toBeTruthy();

    const refused = await browser.get(`${authorizePath(params)}&project_cursor=abc`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('project_org and project_cursor go together.');
  });
});
