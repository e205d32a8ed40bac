import request from 'supertest';
import { createApiKey, createTeam } from './factories/rest';
import { identityProviderPath, insertIdentityProvider, testDomain } from './helpers/identity';
import { describeAccess, mountedRoutes } from './helpers/routes';
import { startTestApp, TestApp } from './helpers/test-app';

describe('OpenAPI document at /api/docs', () => {
  let t: TestApp;
  let doc: {
    paths: Record<string, Record<string, { tags?: string[]; security?: unknown[]; responses: Record<string, { content?: unknown }>; requestBody?: unknown }>>;
    components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>; securitySchemes: Record<string, unknown> };
  };
  beforeAll(async () => {
    t = await startTestApp();
    doc = (await request(t.baseUrl).get('/api/docs/openapi.json').expect(200)).body;
  });
  afterAll(() => t.close());

  it('serves the UI without a credential', async () => {
    const res = await request(t.baseUrl).get('/api/docs/').expect(200);
    expect(res.text).toContain('swagger');
  });

  it.each([
    ['/api/auth/signup', 'post', '201', 'SignupResponseDto', false],
    ['/api/auth/login', 'post', '200', 'SessionTokenDto', false],
    ['/api/me', 'get', '200', 'MeDto', true],
    ['/api/permissions', 'get', '200', 'PermissionCataloguesDto', true],
    ['/api/organizations', 'post', '201', 'OrganizationDto', true],
    ['/api/organizations/{orgId}/projects', 'post', '201', 'ProjectDto', true],
    ['/api/organizations/{orgId}/projects/{projectId}', 'delete', '200', 'DeletedProjectDto', true],
    ['/api/organizations/{orgId}/members', 'get', '200', 'MemberListDto', true],
    ['/api/organizations/{orgId}/members/{userId}', 'patch', '200', 'ChangedMemberDto', true],
    ['/api/organizations/{orgId}/api-keys', 'post', '201', 'CreatedApiKeyDto', true],
    ['/api/organizations/{orgId}/api-keys/{keyId}/revoke', 'post', '200', 'RevokedApiKeyDto', true],
    ['/api/organizations/{orgId}/audit-events', 'get', '200', 'AuditEventPageDto', true],
  ])('documents %s %s with its %s response type and security', (path, method, status, schema, secured) => {
    const op = doc.paths[path]?.[method];
    expect(op).toBeDefined();
    expect(op!.tags?.length).toBeGreaterThan(0);
    expect(JSON.stringify(op!.responses[status])).toContain(`#/components/schemas/${schema}`);
    if (secured) {
      expect(op!.security).toEqual([{ bearer: [] }]);
      expect(op!.responses['401']).toBeDefined();
    }
  });

  it('describes request bodies field by field', () => {
    // organizationName is required unless the sign-up comes from an invitation (then it is not used).
    expect(doc.components.schemas.SignupDto!.required).toEqual(['email', 'password', 'name']);
    expect(Object.keys(doc.components.schemas.SignupDto!.properties!)).toEqual(['email', 'password', 'name', 'organizationName', 'invitation']);
    expect(doc.components.schemas.SignupDto!.properties!.password).toMatchObject({ minLength: 12 });
    expect(doc.components.schemas.CreateApiKeyDto!.properties!.permissions).toMatchObject({
      type: 'array',
      items: { enum: ['projects:read', 'projects:write', 'service_keys:read', 'service_keys:write', 'members:read', 'audit:read'] },
    });
    expect(doc.components.schemas.ApiErrorDto!.required).toEqual(['statusCode', 'message', 'error']);
  });

  it('documents every field the identity-provider settings answer with, tenant included', async () => {
    const { organization, admin } = await createTeam(t);
    await insertIdentityProvider(t, organization.id, { verifiedDomains: [testDomain('openapi')] });
    const res = await request(t.baseUrl).get(identityProviderPath(organization.id)).set('Authorization', `Bearer ${admin.jwt}`).expect(200);
    const documented = Object.keys(doc.components.schemas.IdentityProviderDto!.properties!);
    expect(documented.sort()).toEqual(Object.keys(res.body).sort());
    expect(documented).toContain('tenant');
  });

  it('documents how a route that needs a recent sign-in says to refresh it', () => {
    const decision = doc.paths['/api/organizations/{orgId}/approvals/{id}/decision']?.post;
    expect(JSON.stringify(decision!.responses['401'])).toContain('#/components/schemas/ReauthenticationRequiredDto');
    expect(Object.keys(doc.components.schemas.ReauthenticationRequiredDto!.properties!)).toEqual(
      expect.arrayContaining(['statusCode', 'message', 'error', 'code', 'method', 'reauthenticateUrl']),
    );
    const list = doc.paths['/api/organizations/{orgId}/approvals']?.get;
    expect(JSON.stringify(list!.responses['401'])).toContain('#/components/schemas/ApiErrorDto');
  });

  it('leaves the HTML pages out', () => {
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/signup'))).toEqual([]);
  });

  it("says which routes need a person's session: exactly those an rk_ key is refused on", async () => {
    type Operation = { 'x-session-only'?: boolean; description?: string };
    const marked = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Operation>)
        .filter(([, op]) => op['x-session-only'] === true)
        .map(([method, op]) => {
          expect(op.description).toContain("Needs a person's session");
          return `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`;
        }),
    );
    // The guard's own rules (the route-access declarations): sessionOnly, or under an organisation with no rk_ permission.
    const refusingKeys = mountedRoutes(t.app)
      .filter((r) => /^\S+\s+\/api\//.test(describeAccess(r)) && describeAccess(r).endsWith('rk_ refused'))
      .map((r) => `${r.method} ${r.path}`);
    expect(marked.sort()).toEqual(refusingKeys.sort());
    expect(marked).toEqual(expect.arrayContaining(['POST /api/organizations/:orgId/scim-tokens', 'PUT /api/organizations/:orgId/identity-provider']));
    expect(marked).not.toContain('GET /api/organizations/:orgId/projects');
    // And the service does what the document says.
    const { organization } = await createTeam(t);
    const key = await createApiKey(t.dataSource, organization.id, ['projects:read']);
    await request(t.baseUrl).get(`/api/organizations/${organization.id}/scim-tokens`).set('Authorization', `Bearer ${key.key}`).expect(403);
    await request(t.baseUrl).get(`/api/organizations/${organization.id}/projects`).set('Authorization', `Bearer ${key.key}`).expect(200);
  });
});
