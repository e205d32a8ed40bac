import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { addMember, createOrganization, createProject, createUser } from './factories';
import { authorizePath, formChoices, hiddenField, openConsent, pkcePair, redirectParams, registerClient, RegisteredTestClient, TestBrowser, tokenRequest } from './factories/oauth';
import { startTestApp, TestApp } from './helpers/test-app';

const CONSENT = '/api/agent/oauth/authorize';
const NAME_FIELD = '<label for="project-name">Project name</label>';

/**
 * The consent page's "Project name": a person with no project to offer who may create one (an
 * admin of an organisation that admits the client) names it there, and Approve creates it with
 * the grant; nobody else is offered it.
 */
describe('consent: creating the project while approving', () => {
  let t: TestApp;
  let client: RegisteredTestClient;

  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
    client = await registerClient(t.baseUrl, { client_name: 'New Project Client' });
  });
  afterAll(() => t.close());

  async function signedIn(userId: string): Promise<TestBrowser> {
    const browser = new TestBrowser(t.baseUrl);
    browser.cookies.set('ag_session', (await t.app.get(SessionTokenService).issue(userId)).accessToken);
    return browser;
  }

  function consentPath(verifierChallenge = pkcePair()) {
    return {
      ...verifierChallenge,
      path: authorizePath({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: client.redirect_uris[0]!,
        code_challenge: verifierChallenge.challenge,
        code_challenge_method: 'S256',
        state: 'new-project',
        resource: `${t.baseUrl}/api/mcp`,
      }),
    };
  }

  /** A person who administers a new organisation without projects. */
  async function newAdmin() {
    const user = await createUser(t.dataSource);
    const organization = await createOrganization(t.dataSource);
    await addMember(t.dataSource, organization.id, user.id, 'admin');
    return { user, organization, browser: await signedIn(user.id) };
  }

  const projectsOf = (organizationId: string) =>
    t.dataSource.query('SELECT id, name FROM projects WHERE organization_id = $1 AND deleted_at IS NULL', [organizationId]);

  it('offers an admin without projects the "Project name" field; Approve creates the project with the grant, audited, and the code works', async () => {
    const { user, organization, browser } = await newAdmin();
    const { verifier, path } = consentPath();
    const consent = await openConsent(browser, path);
    expect(consent.html).toContain(NAME_FIELD);
    expect(consent.html).toContain('name="new_project_name"');
    expect(hiddenField(consent.html, 'new_project_organization')).toBe(organization.id);
    expect(consent.html).toContain(`created in <strong>${organization.name}</strong> when you approve`);
    expect(formChoices(consent.html, 'project_id')).toEqual([]);
    expect(consent.html).toContain('value="approve"');
    expect(consent.html).not.toContain('You are not a member of any organisation with a project');

    const res = await browser.post(CONSENT, {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      new_project_organization: organization.id,
      new_project_name: '  Made on consent ',
      permissions: ['project:read', 'tasks:read'],
      decision: 'approve',
    });
    expect(res.status).toBe(303);
    const params = redirectParams(res);
    expect(params.get('state')).toBe('new-project');
    const [project] = await projectsOf(organization.id);
    expect(project.name).toBe('Made on consent');
    const events = await t.dataSource.query(
      `SELECT action, actor_type, actor_id, project_id, metadata FROM audit_events WHERE organization_id = $1 ORDER BY created_at, action DESC`,
      [organization.id],
    );
    expect(events).toEqual([
      { action: 'project.created', actor_type: 'user', actor_id: user.id, project_id: project.id, metadata: { name: 'Made on consent' } },
      expect.objectContaining({ action: 'consent.approved', actor_id: user.id, project_id: project.id }),
    ]);
    const [grant] = await t.dataSource.query('SELECT project_id, organization_id FROM oauth_grants WHERE user_id = $1', [user.id]);
    expect(grant).toEqual({ project_id: project.id, organization_id: organization.id });

    const tokens = await tokenRequest(t.baseUrl, {
      grant_type: 'authorization_code',
      code: params.get('code')!,
      code_verifier: verifier,
      redirect_uri: client.redirect_uris[0],
      client_id: client.client_id,
      resource: `${t.baseUrl}/api/mcp`,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('project:read tasks:read');
  });

  it.each([
    ['empty', '', 'Enter a project name.'],
    ['blank', '   ', 'Enter a project name.'],
    ['overlong', 'x'.repeat(201), 'Project name must be at most 200 characters.'],
  ])('answers an %s name with the consent page and the field error (400), creating nothing; the request stays usable', async (_kind, name, error) => {
    const { organization, browser } = await newAdmin();
    const consent = await openConsent(browser, consentPath().path);
    const base = { request_id: consent.requestId, csrf_token: consent.csrfToken, new_project_organization: organization.id, permissions: ['tasks:read'], decision: 'approve' };
    const res = await browser.post(CONSENT, { ...base, new_project_name: name });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(NAME_FIELD);
    expect(html).toContain(`<p class="field-error" id="project-name-error">${error}</p>`);
    expect(html).toMatch(/name="new_project_name"[^>]*aria-describedby="new-project-hint project-name-error" aria-invalid="true"/);
    expect(formChoices(html, 'permissions').filter((c) => c.checked).map((c) => c.value)).toEqual(['tasks:read']);
    expect(await projectsOf(organization.id)).toEqual([]);
    const again = await browser.post(CONSENT, { ...base, new_project_name: 'Second try' });
    expect(again.status).toBe(303);
    expect((await projectsOf(organization.id)).map((p: { name: string }) => p.name)).toEqual(['Second try']);
  });

  it('refuses a name sent twice or a missing organisation with the consent page (400), never a 500', async () => {
    const { organization, browser } = await newAdmin();
    const consent = await openConsent(browser, consentPath().path);
    const base = { request_id: consent.requestId, csrf_token: consent.csrfToken, permissions: ['tasks:read'], decision: 'approve' };
    const twice = await browser.post(CONSENT, { ...base, new_project_organization: organization.id, new_project_name: ['a', 'b'] });
    expect(twice.status).toBe(400);
    expect(await twice.text()).toContain('<p class="field-error" id="project-name-error">Enter one project name.</p>');
    const noOrganization = await browser.post(CONSENT, { ...base, new_project_organization: 'not-a-uuid', new_project_name: 'P' });
    expect(noOrganization.status).toBe(400);
    expect(await noOrganization.text()).toContain('Pick the organisation of the new project.');
    expect(await projectsOf(organization.id)).toEqual([]);
  });

  it('lets an admin of several organisations pick the one the project goes to', async () => {
    const { user, organization: first, browser } = await newAdmin();
    const second = await createOrganization(t.dataSource);
    await addMember(t.dataSource, second.id, user.id, 'admin');
    const consent = await openConsent(browser, consentPath().path);
    expect(consent.html).toContain('<label for="new-project-organization">Organisation</label>');
    expect(consent.html).toContain(`<option value="${second.id}">${second.name}</option>`);
    const res = await browser.post(CONSENT, {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      new_project_organization: second.id,
      new_project_name: 'In the second',
      permissions: ['tasks:read'],
      decision: 'approve',
    });
    expect(res.status).toBe(303);
    expect(await projectsOf(first.id)).toEqual([]);
    expect((await projectsOf(second.id)).map((p: { name: string }) => p.name)).toEqual(['In the second']);
  });

  it('does not offer it to a member without projects (the explanation stays), and refuses a hand-made post (403), creating nothing', async () => {
    const user = await createUser(t.dataSource);
    const organization = await createOrganization(t.dataSource);
    await addMember(t.dataSource, organization.id, user.id, 'member');
    const browser = await signedIn(user.id);
    const consent = await openConsent(browser, consentPath().path);
    expect(consent.html).not.toContain(NAME_FIELD);
    expect(consent.html).not.toContain('new_project_name');
    expect(consent.html).toContain('You are not a member of any organisation with a project');
    expect(consent.html).not.toContain('value="approve"');
    const res = await browser.post(CONSENT, {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      new_project_organization: organization.id,
      new_project_name: 'Not mine to make',
      permissions: ['tasks:read'],
      decision: 'approve',
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Only an administrator of that organisation can create a project in it.');
    expect(await projectsOf(organization.id)).toEqual([]);
    // Nor in an organisation they do not belong to at all.
    const foreign = await createOrganization(t.dataSource);
    const again = await browser.post(CONSENT, {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      new_project_organization: foreign.id,
      new_project_name: 'Elsewhere',
      permissions: ['tasks:read'],
      decision: 'approve',
    });
    expect(again.status).toBe(403);
    expect(await projectsOf(foreign.id)).toEqual([]);
  });

  it('does not offer it to a person who has a project to pick', async () => {
    const { organization, browser } = await newAdmin();
    const project = await createProject(t.dataSource, organization.id, 'Existing');
    const consent = await openConsent(browser, consentPath().path);
    expect(consent.html).not.toContain(NAME_FIELD);
    expect(formChoices(consent.html, 'project_id').map((c) => c.value)).toEqual([project.id]);
  });

  it("does not offer it in an organisation whose client policy refuses the client, and refuses a hand-made post there", async () => {
    const { user, organization, browser } = await newAdmin();
    const jwt = (await t.app.get(SessionTokenService).issue(user.id)).accessToken;
    await request(t.baseUrl)
      .put(`/api/organizations/${organization.id}/client-policy`)
      .auth(jwt, { type: 'bearer' })
      .send({ mode: 'listed', allowedHosts: ['claude.ai'], allowRegisteredClients: false })
      .expect(200);
    const consent = await openConsent(browser, consentPath().path);
    expect(consent.html).not.toContain(NAME_FIELD);
    const res = await browser.post(CONSENT, {
      request_id: consent.requestId,
      csrf_token: consent.csrfToken,
      new_project_organization: organization.id,
      new_project_name: 'Refused',
      permissions: ['tasks:read'],
      decision: 'approve',
    });
    expect(res.status).toBe(403);
    expect(await projectsOf(organization.id)).toEqual([]);
  });
});
