import request from 'supertest';
import { addMember, createOrganization, createProject } from './factories';
import {
  authorizeCode,
  authorizePath,
  createPersonWithProject,
  formChoices,
  openConsent,
  pkcePair,
  registerClient,
  RegisteredTestClient,
  TEST_REDIRECT_URI,
  TestBrowser,
  tokenRequest,
} from './factories/oauth';
import { sessionFor } from './factories/rest';
import { DocumentServer } from './helpers/document-server';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * An organisation's client policy: which AI clients may connect to it. Two metadata-document
 * clients on two local hosts (two ports of 127.0.0.1, CLIENT_METADATA_ALLOW_LOOPBACK=true) and a
 * registered client; the policy on REST, the consent page and existing grants.
 */
describe('organisation client policy', () => {
  let t: TestApp;
  let admittedDocs: DocumentServer;
  let refusedDocs: DocumentServer;
  let admitted: RegisteredTestClient;
  let refused: RegisteredTestClient;

  const documentClient = (docs: DocumentServer, name: string): RegisteredTestClient => ({
    client_id: docs.json('/client.json', (url) => ({ client_id: url, client_name: name, redirect_uris: [TEST_REDIRECT_URI] })),
    client_name: name,
    redirect_uris: [TEST_REDIRECT_URI],
    token_endpoint_auth_method: 'none',
  });

  beforeAll(async () => {
    t = await startTestApp({ CLIENT_METADATA_ALLOW_LOOPBACK: 'true' });
    admittedDocs = await DocumentServer.start();
    refusedDocs = await DocumentServer.start();
    admitted = documentClient(admittedDocs, 'Admitted Client');
    refused = documentClient(refusedDocs, 'Refused Client');
  });
  afterAll(async () => {
    await admittedDocs.close();
    await refusedDocs.close();
    await t.close();
  });

  /** A person who is admin of an organisation with one project, signed in to the browser and on REST. */
  async function admin() {
    const person = await createPersonWithProject(t, 'admin');
    const browser = new TestBrowser(t.baseUrl);
    expect((await browser.login(person.user.email, person.user.password)).status).toBe(303);
    return { ...person, browser, jwt: await sessionFor(t, person.user.id) };
  }

  const policyPath = (orgId: string) => `/api/organizations/${orgId}/client-policy`;
  const putPolicy = (jwt: string, orgId: string, body: object) => request(t.baseUrl).put(policyPath(orgId)).set('Authorization', `Bearer ${jwt}`).send(body);
  const onlyAdmitted = () => ({ mode: 'listed', allowedHosts: [`127.0.0.1:${admittedDocs.port}`] });

  const consentFor = (browser: TestBrowser, client: RegisteredTestClient) =>
    openConsent(
      browser,
      authorizePath({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: TEST_REDIRECT_URI,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 's',
      }),
    );

  async function connect(person: Awaited<ReturnType<typeof admin>>, client: RegisteredTestClient) {
    const { code, verifier, redirectUri } = await authorizeCode(t, { browser: person.browser, client, projectId: person.project.id });
    const tokens = await tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id });
    expect(tokens.status).toBe(200);
    return { access: tokens.body.access_token as string, refresh: tokens.body.refresh_token as string };
  }

  const mcpCall = (access: string) =>
    fetch(`${t.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${access}`, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_project', arguments: {} } }),
    });

  it('is "any client" until an admin sets it; the admin reads and sets it on REST, audited', async () => {
    const person = await admin();
    const initial = await request(t.baseUrl).get(policyPath(person.organization.id)).set('Authorization', `Bearer ${person.jwt}`);
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({ organizationId: person.organization.id, mode: 'any', allowedHosts: [], allowRegisteredClients: true, updatedAt: null });

    const set = await putPolicy(person.jwt, person.organization.id, { mode: 'listed', allowedHosts: ['Claude.AI', 'claude.ai', `127.0.0.1:${admittedDocs.port}`], allowRegisteredClients: true });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ mode: 'listed', allowedHosts: [`127.0.0.1:${admittedDocs.port}`, 'claude.ai'], allowRegisteredClients: true, revokedGrants: 0 });
    const read = await request(t.baseUrl).get(policyPath(person.organization.id)).set('Authorization', `Bearer ${person.jwt}`);
    expect(read.body).toMatchObject({ mode: 'listed', allowedHosts: [`127.0.0.1:${admittedDocs.port}`, 'claude.ai'], allowRegisteredClients: true });
    expect(typeof read.body.updatedAt).toBe('string');

    const events = await t.dataSource.query(`SELECT actor_type, actor_id, metadata FROM audit_events WHERE organization_id = $1 AND action = 'client_policy.updated'`, [person.organization.id]);
    expect(events).toEqual([
      {
        actor_type: 'user',
        actor_id: person.user.id,
        metadata: { mode: 'listed', allowedHosts: [`127.0.0.1:${admittedDocs.port}`, 'claude.ai'], allowRegisteredClients: true, revokedGrants: 0 },
      },
    ]);
  });

  it('refuses a malformed policy with a 400 naming the field', async () => {
    const person = await admin();
    const cases: [object, string][] = [
      [{ mode: 'some' }, 'mode must be one of: any, listed'],
      [{ mode: 'listed', allowedHosts: ['https://claude.ai/x'] }, 'allowedHosts[0] is not a host name'],
      [{ mode: 'listed', allowedHosts: ['*.example.com'] }, 'allowedHosts[0] is not a host name'],
      [{ mode: 'listed', allowedHosts: 'claude.ai' }, 'allowedHosts must be an array of host names'],
      [{ mode: 'listed', allowRegisteredClients: 'yes' }, 'allowRegisteredClients must be true or false'],
      [{ mode: 'any', allowedHosts: ['claude.ai'] }, 'allowedHosts and allowRegisteredClients apply only to mode "listed"'],
    ];
    for (const [body, message] of cases) {
      const res = await putPolicy(person.jwt, person.organization.id, body);
      expect(res.status).toBe(400);
      expect([res.body.message].flat().join('\n')).toContain(message);
    }
  });

  it('offers on the consent page only projects whose organisation admits the client, and says so when none does', async () => {
    const person = await admin();
    // A second organisation of the same person, which keeps "any client".
    const open = await createOrganization(t.dataSource, 'Open Org');
    const openProject = await createProject(t.dataSource, open.id, 'Open Project');
    await addMember(t.dataSource, open.id, person.user.id, 'member');
    expect((await putPolicy(person.jwt, person.organization.id, onlyAdmitted())).status).toBe(200);

    const admittedPage = await consentFor(person.browser, admitted);
    expect(formChoices(admittedPage.html, 'project_id').map((c) => c.value).sort()).toEqual([person.project.id, openProject.id].sort());
    expect(admittedPage.html).not.toContain('Not offered');

    const refusedPage = await consentFor(person.browser, refused);
    expect(formChoices(refusedPage.html, 'project_id').map((c) => c.value)).toEqual([openProject.id]);
    expect(refusedPage.html).toContain(`Not offered: the projects of ${person.organization.name}, whose administrators do not allow this application.`);

    // Submitting the refusing organisation's project anyway is refused; nothing is granted.
    const res = await person.browser.post('/api/agent/oauth/authorize', {
      request_id: refusedPage.requestId,
      csrf_token: refusedPage.csrfToken,
      project_id: person.project.id,
      permissions: ['project:read'],
      decision: 'approve',
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("That project&#39;s organisation does not allow this application to connect.");

    // Once the open organisation refuses it too, nothing is offered.
    const openAdmin = await sessionFor(t, person.user.id);
    await t.dataSource.query(`UPDATE memberships SET role = 'admin' WHERE organization_id = $1 AND user_id = $2`, [open.id, person.user.id]);
    expect((await putPolicy(openAdmin, open.id, { mode: 'listed', allowedHosts: [], allowRegisteredClients: true })).status).toBe(200);
    const none = await consentFor(person.browser, refused);
    expect(formChoices(none.html, 'project_id')).toEqual([]);
    expect(none.html).toContain('None of your organisations allows this application to connect');

    // Registered clients are one class: admitted by the open organisation, refused by the other.
    const registered = await registerClient(t.baseUrl);
    const registeredPage = await consentFor(person.browser, registered);
    expect(formChoices(registeredPage.html, 'project_id').map((c) => c.value)).toEqual([openProject.id]);
  });

  it('ends at once the grants of a client the organisation later refuses, and only those', async () => {
    const person = await admin();
    const refusedTokens = await connect(person, refused);
    const admittedTokens = await connect(person, admitted);
    expect((await mcpCall(refusedTokens.access)).status).toBe(200);

    const set = await putPolicy(person.jwt, person.organization.id, onlyAdmitted());
    expect(set.status).toBe(200);
    expect(set.body.revokedGrants).toBe(1);

    expect((await mcpCall(refusedTokens.access)).status).toBe(401);
    const refresh = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: refusedTokens.refresh, client_id: refused.client_id });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    const revokedEvents = await t.dataSource.query(
      `SELECT metadata->>'reason' AS reason, metadata->>'clientId' AS client FROM audit_events WHERE organization_id = $1 AND action = 'grant.revoked'`,
      [person.organization.id],
    );
    expect(revokedEvents).toEqual([{ reason: 'client_refused', client: refused.client_id }]);

    // The admitted client keeps working.
    expect((await mcpCall(admittedTokens.access)).status).toBe(200);
    const stillRefreshes = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: admittedTokens.refresh, client_id: admitted.client_id });
    expect(stillRefreshes.status).toBe(200);
  });

  it('refuses a code approved before the policy changed', async () => {
    const person = await admin();
    const { code, verifier, redirectUri } = await authorizeCode(t, { browser: person.browser, client: refused, projectId: person.project.id });
    expect((await putPolicy(person.jwt, person.organization.id, onlyAdmitted())).status).toBe(200);
    const tokens = await tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: refused.client_id });
    expect(tokens.status).toBe(400);
    expect(tokens.body.error).toBe('invalid_grant');
  });

  it('is for admins: a member gets 403', async () => {
    const person = await admin();
    const member = await createPersonWithProject(t);
    await addMember(t.dataSource, person.organization.id, member.user.id, 'member');
    const jwt = await sessionFor(t, member.user.id);
    expect((await request(t.baseUrl).get(policyPath(person.organization.id)).set('Authorization', `Bearer ${jwt}`)).status).toBe(403);
    expect((await putPolicy(jwt, person.organization.id, { mode: 'any' })).status).toBe(403);
  });
});
