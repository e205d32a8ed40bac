import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { IdentityProviderDirectory } from '@app/identity';
import { ClientRegistrationService } from '@app/oauth';
import { createProject, createProjectsInBulk } from './factories';
import { DashboardClient, dashboardOrganization, DashboardOrganization } from './helpers/dashboard';
import { FakeTxtRecords, identityProviderPath, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

describe('the dashboard: Single sign-on (the organisation identity provider)', () => {
  let t: TestApp;
  let idp: TestIdp;
  const records = new FakeTxtRecords();

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' }, { providers: [records.provider] });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const ssoPath = (org: DashboardOrganization) => `/orgs/${org.organization.id}/single-sign-on`;
  const restSettings = (org: DashboardOrganization) =>
    request(t.baseUrl).get(identityProviderPath(org.organization.id)).auth(org.admin.session, { type: 'bearer' });
  const SECRET = 'idp-client-secret-Zq7xW3';

  /** Connects the organisation's IdP through the page's form; answers the page that follows. */
  async function connect(org: DashboardOrganization, fields: Record<string, string | string[]> = {}) {
    const saved = await org.admin.page.submit(ssoPath(org), ssoPath(org), {
      issuer: idp.issuer,
      clientId: 'gateway-web',
      clientSecret: SECRET,
      emailDomains: '',
      defaultRole: 'member',
      groupsClaim: '',
      mappingGroup: '',
      mappingRole: 'member',
      ...fields,
    });
    expect(saved.status).toBe(303);
    return saved;
  }

  it('is an admin section: members get 403, another organisation 404, and only admins see the link', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const other = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const page = await org.admin.page.get(ssoPath(org));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<a href="${ssoPath(org)}" aria-current="page">Single sign-on</a>`);
    expect(page.text).toContain('<h2 id="sso-settings-title">Connect an identity provider</h2>');
    const projects = await org.member.page.get(`/orgs/${org.organization.id}/projects`);
    expect(projects.text).not.toContain('Single sign-on');
    expect((await org.member.page.get(ssoPath(org))).status).toBe(403);
    expect((await other.admin.page.get(ssoPath(org))).status).toBe(404);
    expect((await org.member.page.post(ssoPath(org), { issuer: idp.issuer, clientId: 'x', clientSecret: 'y' })).status).toBe(403);
    expect((await org.admin.page.post(ssoPath(org), { issuer: idp.issuer, clientId: 'x', clientSecret: 'y' }, null)).status).toBe(403);
    expect((await restSettings(org)).status).toBe(404);
  });

  it('connects through the form on the settings service: REST reads the same settings and the secret never appears', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const domains = [testDomain(), testDomain()].sort();
    const saved = await connect(org, {
      emailDomains: ` ${domains[0].toUpperCase()}\r\n\r\n${domains[1]}`,
      groupsClaim: 'groups',
      mappingGroup: ['gateway-admins', 'removed-row', ''],
      mappingRole: ['admin', 'member', 'member'],
      mappingRemove: '1',
      requireSso: 'true',
      // The domains are pending and nobody is linked yet: requiring single sign-on locks everyone out, confirmed.
      confirmLockout: 'true',
    });
    expect(saved.headers.location).toBe(`${ssoPath(org)}?done=connected`);
    // Single sign-on is now required: the admin's password session no longer opens the
    // organisation (docs/sso.md, "What a session opens"); they go on signed in through the IdP.
    const refused = await org.admin.page.get(saved.headers.location);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Single sign-on required');
    org.admin.session = (await t.app.get(SessionTokenService).issue(org.admin.id, {}, { ssoIssuer: idp.issuer })).accessToken;
    org.admin.page = new DashboardClient(t.baseUrl, org.admin.session);

    const page = await org.admin.page.get(saved.headers.location);
    expect(page.text).toContain('Identity provider connected.');
    expect(page.text).toContain(`<dt>Issuer</dt><dd><code>${idp.issuer}</code></dd>`);
    expect(page.text).toContain(`<code>${idp.issuer}/jwks</code> (1 signing key)`);
    // The organisation's own redirect URI, the one REST shows.
    const ownUri = ((await restSettings(org)).body as { redirectUri: string }).redirectUri;
    expect(ownUri).toMatch(new RegExp(`^${t.baseUrl}/auth/sso/callback/[A-Za-z0-9_-]{22}$`));
    expect(page.text).toContain(`<code id="sso-redirect-uri">${ownUri}</code>`);
    expect(page.text).toMatch(/id="sso-client-id" name="clientId" value="gateway-web"/);
    expect(page.text).toContain('<input type="password" id="sso-client-secret" name="clientSecret" value=""');
    expect(page.text).toMatch(/name="requireSso" value="true"[^>]* checked/);
    expect(page.text).toContain(`>${domains.join('\n')}</textarea>`);
    expect(page.text).toContain('value="gateway-admins"');
    expect(page.text).not.toContain('removed-row');
    const rest = (await restSettings(org).expect(200)).body;
    expect(rest).toMatchObject({
      issuer: idp.issuer,
      clientId: 'gateway-web',
      clientSecretSet: true,
      emailDomains: domains,
      defaultRole: 'member',
      groupsClaim: 'groups',
      roleMappings: [{ group: 'gateway-admins', role: 'admin' }],
      requireSso: true,
      acceptIdJag: false,
      idJagClients: [],
    });
    for (const d of rest.domains) {
      expect(d.status).toBe('pending');
      expect(page.text).toContain(`<code>${d.txtRecord.name}</code> TXT <code>${d.txtRecord.value}</code>`);
      expect(page.text).toContain(`aria-label="Verify ${d.domain}"`);
    }
    expect(page.text).not.toContain(SECRET);
    expect(JSON.stringify(rest)).not.toContain(SECRET);

    // Saving again with the secret field empty keeps the stored secret.
    const again = await org.admin.page.submit(ssoPath(org), ssoPath(org), {
      issuer: idp.issuer,
      clientId: 'gateway-web-2',
      clientSecret: '',
      emailDomains: domains[0],
      defaultRole: 'member',
      groupsClaim: 'groups',
      mappingGroup: ['gateway-admins', ''],
      mappingRole: ['admin', 'member'],
    });
    expect(again.headers.location).toBe(`${ssoPath(org)}?done=saved`);
    expect(await t.app.get(IdentityProviderDirectory).clientSecretOf(org.organization.id)).toBe(SECRET);
    expect((await restSettings(org).expect(200)).body).toMatchObject({ clientId: 'gateway-web-2', emailDomains: [domains[0]], requireSso: false });
    const [event] = await t.dataSource.query(
      `SELECT actor_id, metadata FROM audit_events WHERE organization_id = $1 AND action = 'identity_provider.updated' ORDER BY created_at LIMIT 1`,
      [org.organization.id],
    );
    expect(event.actor_id).toBe(org.admin.id);
    expect(JSON.stringify(event.metadata)).not.toContain(SECRET);
  });

  it('asks the admin to confirm "require single sign-on" when it would lock people out, naming them; saved once confirmed', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const domain = testDomain();
    await connect(org, { emailDomains: domain });
    const fields = { issuer: idp.issuer, clientId: 'gateway-web', emailDomains: domain, defaultRole: 'member', groupsClaim: '', mappingGroup: '', mappingRole: 'member', requireSso: 'true' };
    const asked = await org.admin.page.submit(ssoPath(org), ssoPath(org), fields);
    expect(asked.status).toBe(409);
    expect(asked.text).toContain('<div class="warning" role="alert" id="sso-lockout">');
    expect(asked.text).toContain('<strong>2 people cannot sign in through the identity provider</strong>');
    expect(asked.text).toContain(`<ul id="sso-lockout-people"><li>${org.admin.name} &lt;${org.admin.email}&gt; (admin)</li><li>${org.member.name} &lt;${org.member.email}&gt; (member)</li></ul>`);
    expect(asked.text).toMatch(/<input type="checkbox" id="sso-confirm-lockout" name="confirmLockout" value="true">/);
    // What was typed stays, the box still ticked; nothing was saved.
    expect(asked.text).toMatch(/name="requireSso" value="true"[^>]* checked/);
    expect((await restSettings(org).expect(200)).body.requireSso).toBe(false);

    const confirmed = await org.admin.page.post(ssoPath(org), { ...fields, confirmLockout: 'true' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.location).toBe(`${ssoPath(org)}?done=saved`);
    const sso = (await t.app.get(SessionTokenService).issue(org.admin.id, {}, { ssoIssuer: idp.issuer })).accessToken;
    const rest = await request(t.baseUrl).get(identityProviderPath(org.organization.id)).auth(sso, { type: 'bearer' }).expect(200);
    expect(rest.body.requireSso).toBe(true);
    // The admin's password session now lands on a page that says who can switch it off.
    const closed = await org.admin.page.get(ssoPath(org));
    expect(closed.status).toBe(403);
    expect(closed.text).toContain('Single sign-on required');
    expect(closed.text).toContain(`an operator of this deployment with <code>npm run cli -- sso-require-off --organization ${org.organization.id}</code>`);
  });

  it('shows a refusal of the service next to its field (4xx), keeps what was typed, and never echoes the secret', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const fields = { issuer: idp.issuer, clientId: 'gateway-web', clientSecret: SECRET, emailDomains: 'gmail.com', defaultRole: 'member', groupsClaim: '' };
    const publicDomain = await org.admin.page.submit(ssoPath(org), ssoPath(org), fields);
    expect(publicDomain.status).toBe(400);
    expect(publicDomain.text).toContain(
      '<p class="field-error" id="sso-domains-error">gmail.com is a public mail service&#39;s domain: anyone can have an address there, so it cannot be claimed</p>',
    );
    expect(publicDomain.text).toMatch(/id="sso-domains" name="emailDomains"[^>]*aria-invalid="true">gmail.com<\/textarea>/);
    expect(publicDomain.text).not.toContain(SECRET);

    const badIssuer = await org.admin.page.submit(ssoPath(org), ssoPath(org), { ...fields, issuer: 'not a url', emailDomains: '' });
    expect(badIssuer.status).toBe(400);
    expect(badIssuer.text).toContain('<p class="field-error" id="sso-issuer-error">issuer must be an absolute URL such as https://idp.example.com</p>');

    const admin = await org.admin.page.submit(ssoPath(org), ssoPath(org), { ...fields, emailDomains: '', defaultRole: 'admin' });
    expect(admin.status).toBe(400);
    expect(admin.text).toContain('Default role cannot be admin: give admin rights through Mappings (groups) or in the members list');

    const mappings = await org.admin.page.submit(ssoPath(org), ssoPath(org), { ...fields, emailDomains: '', mappingGroup: ['', 'ops'], mappingRole: ['member', 'owner'] });
    expect(mappings.status).toBe(400);
    expect(mappings.text).toContain('Mapping row 2&#39;s role must be one of: admin, member');

    const noSecret = await org.admin.page.submit(ssoPath(org), ssoPath(org), { ...fields, emailDomains: '', clientSecret: '' });
    expect(noSecret.status).toBe(400);
    expect(noSecret.text).toContain('<p class="field-error" id="sso-client-secret-error">Client secret is required when connecting an identity provider</p>');

    const unreachable = await org.admin.page.submit(ssoPath(org), ssoPath(org), { ...fields, emailDomains: '', issuer: 'http://127.0.0.1:9' });
    expect(unreachable.status).toBe(400);
    expect(unreachable.text).toContain('id="sso-issuer-error"');
    expect((await restSettings(org)).status).toBe(404);
  });

  it('verifies a pending domain once its TXT record is published, and says what is missing before', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const domain = testDomain();
    await connect(org, { emailDomains: domain });
    const claim = (await restSettings(org).expect(200)).body.domains[0];
    const verifyPath = `${ssoPath(org)}/domains/${domain}/verify`;

    const missing = await org.admin.page.submit(ssoPath(org), verifyPath);
    expect(missing.status).toBe(400);
    expect(missing.text).toContain(`No TXT record &quot;${claim.txtRecord.value}&quot; was found at ${claim.txtRecord.name}`);
    expect(missing.text).toContain('<strong>Pending</strong>');

    records.publishRecord(claim.txtRecord);
    const verified = await org.admin.page.submit(ssoPath(org), verifyPath);
    expect(verified.status).toBe(303);
    const page = await org.admin.page.get(verified.headers.location);
    expect(page.text).toContain('Domain verified.');
    expect(page.text).toMatch(new RegExp(`<td>${domain.replace(/\./g, '\\.')}</td>\\s*<td>Verified <time`));
    expect(page.text).not.toContain(`aria-label="Verify ${domain}"`);
    expect((await restSettings(org).expect(200)).body.domains[0]).toMatchObject({ domain, status: 'verified' });

    expect((await org.admin.page.submit(ssoPath(org), `${ssoPath(org)}/domains/not-claimed.example/verify`)).status).toBe(404);
    expect((await org.member.page.post(verifyPath, {})).status).toBe(403);
  });

  it('edits the AI clients of ID-JAG: client ids with a project from the picker, acceptance only after an admin signed in through the IdP', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const other = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const website = await createProject(t.dataSource, org.organization.id, 'Website relaunch');
    await createProject(t.dataSource, org.organization.id, 'Inventory');
    const foreign = await createProject(t.dataSource, other.organization.id, 'Foreign');
    await connect(org);
    const idJagPath = `${ssoPath(org)}/id-jag`;

    const page = await org.admin.page.get(ssoPath(org));
    expect(page.text).toMatch(/name="acceptIdJag" value="true"[^>]* disabled/);
    expect(page.text).toContain('It can be switched on only after an admin of this organisation has signed in through this identity provider once');
    expect(page.text).toContain(`<option value="${website.id}">Website relaunch</option>`);

    // The organisation's own clients (SPEC §10: only they may be named).
    const registrations = t.app.get(ClientRegistrationService);
    const metadataClient = (await registrations.createConfidential(org.organization.id, 'Assistant', { actorType: 'user', actorId: org.admin.id })).clientId;
    const registeredClient = (await registrations.createConfidential(org.organization.id, 'Second assistant', { actorType: 'user', actorId: org.admin.id })).clientId;
    const saved = await org.admin.page.post(idJagPath, { idJagClientId: [metadataClient, registeredClient, ''], idJagProject: [website.id, '', ''] });
    expect(saved.status).toBe(303);
    expect(saved.headers.location).toBe(`${ssoPath(org)}?done=id-jag-saved`);
    expect((await restSettings(org).expect(200)).body).toMatchObject({
      acceptIdJag: false,
      idJagClients: [
        { clientId: metadataClient, projectId: website.id },
        { clientId: registeredClient, projectId: null },
      ],
    });

    // The picker narrows the projects offered; a row's chosen project stays selected.
    const searched = await org.admin.page.get(`${ssoPath(org)}?projectQuery=invent`);
    expect(searched.text).toContain(`value="${metadataClient}"`);
    expect(searched.text).toContain(`<option value="${website.id}" selected>Website relaunch</option>`);
    expect(searched.text).toContain('>Inventory</option>');
    expect(searched.text.match(/>Website relaunch<\/option>/g)).toHaveLength(1);

    const refused = await org.admin.page.post(idJagPath, { acceptIdJag: 'true', idJagClientId: metadataClient, idJagProject: website.id });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('<p class="field-error" id="sso-accept-error">Accept ID-JAG can be switched on only after an admin of this organisation has signed in through this identity provider');

    const foreignProject = await org.admin.page.post(idJagPath, { idJagClientId: ['', metadataClient], idJagProject: ['', foreign.id] });
    expect(foreignProject.status).toBe(400);
    expect(foreignProject.text).toContain('Client row 2&#39;s project is not a project of this organisation');

    await t.app.get(IdentityProviderDirectory).recordAdminSignIn(org.organization.id, idp.issuer);
    await org.admin.page.get(ssoPath(org));
    const accepted = await org.admin.page.post(idJagPath, {
      acceptIdJag: 'true',
      idJagClientId: [metadataClient, registeredClient],
      idJagProject: [website.id, ''],
      idJagRemove: '1',
    });
    expect(accepted.status).toBe(303);
    expect((await restSettings(org).expect(200)).body).toMatchObject({ acceptIdJag: true, idJagClients: [{ clientId: metadataClient, projectId: website.id }] });
    // The other settings and the secret are kept.
    expect(await t.app.get(IdentityProviderDirectory).clientSecretOf(org.organization.id)).toBe(SECRET);
  });

  it('offers 25 projects at a time in the client rows, with the next ones behind "More projects"', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await createProjectsInBulk(t.dataSource, org.organization.id, 30, 'Bulk project');
    await connect(org);
    const first = await org.admin.page.get(ssoPath(org));
    expect(first.text.match(/>Bulk project \d+<\/option>/g)).toHaveLength(25);
    const more = /<a href="([^"]+)" rel="next">More projects<\/a>/.exec(first.text);
    expect(more?.[1]).toContain('projectCursor=');
    const next = await org.admin.page.get(more![1].replace(/&amp;/g, '&'));
    expect(next.status).toBe(200);
    expect(next.text.match(/>Bulk project \d+<\/option>/g)).toHaveLength(5);
    expect(next.text).toContain('>First matches</a>');
    expect((await org.admin.page.get(`${ssoPath(org)}?projectCursor=made-up`)).status).toBe(400);
  });

  it('adds an empty row without saving, and asks for the secret again rather than sending it back', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    const added = await org.admin.page.submit(ssoPath(org), ssoPath(org), {
      issuer: idp.issuer,
      clientId: 'gateway-web',
      clientSecret: SECRET,
      groupsClaim: 'groups',
      mappingGroup: ['gateway-admins', 'ops'],
      mappingRole: ['admin', 'member'],
      add: 'mapping',
    });
    expect(added.status).toBe(200);
    expect(added.text.match(/name="mappingGroup"/g)).toHaveLength(3);
    expect(added.text).toContain('Type the client secret again before saving');
    expect(added.text).not.toContain(SECRET);
    expect((await restSettings(org)).status).toBe(404);
  });

  it('disconnects after a confirmation that says what ends', async () => {
    const org = await dashboardOrganization(t.app, t.dataSource, t.baseUrl);
    await connect(org, { emailDomains: testDomain() });
    const confirm = await org.admin.page.get(`${ssoPath(org)}/remove`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`<h1>Disconnect ${idp.issuer}?</h1>`);
    expect(confirm.text).toContain('its domain claim is dropped (0 verified)');
    expect((await org.member.page.get(`${ssoPath(org)}/remove`)).status).toBe(403);
    const removed = await org.admin.page.post(`${ssoPath(org)}/remove`);
    expect(removed.status).toBe(303);
    expect(removed.headers.location).toBe(`${ssoPath(org)}?done=removed`);
    expect((await org.admin.page.get(removed.headers.location)).text).toContain('Identity provider disconnected.');
    expect((await restSettings(org)).status).toBe(404);
    expect((await org.admin.page.get(`${ssoPath(org)}/remove`)).status).toBe(404);
  });
});
