import request from 'supertest';
import { startTestApp, TestApp } from './helpers/test-app';

describe('discovery documents (SPEC §4)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each(['/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-protected-resource'])(
    'serves the protected-resource metadata at %s, public and CORS *',
    async (path) => {
      const res = await request(t.baseUrl).get(path).set('Origin', 'https://elsewhere.example').expect(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        resource: `${t.baseUrl}/api/mcp`,
        authorization_servers: [t.baseUrl],
        scopes_supported: ['project:read', 'tasks:read', 'tasks:write', 'tasks:delete'],
        bearer_methods_supported: ['header'],
        resource_name: 'Agent Gateway',
      });
    },
  );

  it('serves the authorization-server metadata with every field, issuer byte-identical to authorization_servers[0]', async () => {
    const prm = await request(t.baseUrl).get('/.well-known/oauth-protected-resource/api/mcp').expect(200);
    const res = await request(t.baseUrl).get('/.well-known/oauth-authorization-server').expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const as = res.body;
    expect(as.issuer).toBe(prm.body.authorization_servers[0]);
    expect(as.issuer).toBe(t.baseUrl);
    expect(as.issuer.endsWith('/')).toBe(false);
    expect(as.authorization_endpoint).toBe(`${t.baseUrl}/api/agent/oauth/authorize`);
    expect(as.token_endpoint).toBe(`${t.baseUrl}/api/agent/oauth/token`);
    expect(as.registration_endpoint).toBe(`${t.baseUrl}/api/agent/oauth/register`);
    expect(as.revocation_endpoint).toBe(`${t.baseUrl}/api/agent/oauth/revoke`);
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.grant_types_supported).toEqual(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer']);
    expect(as.authorization_grant_profiles_supported).toEqual(['urn:ietf:params:oauth:grant-profile:id-jag']);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post', 'client_secret_basic']);
    expect(as.scopes_supported).toEqual(['project:read', 'tasks:read', 'tasks:write', 'tasks:delete']);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.client_id_metadata_document_supported).toBe(true);
  });

  it('never answers 401, even to a request carrying a bad credential', async () => {
    await request(t.baseUrl)
      .get('/.well-known/oauth-authorization-server')
      .set('Authorization', 'Bearer garbage')
      .expect(200);
  });

  it('answers other /.well-known paths with a JSON 404', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server/extra', '/.well-known/x']) {
      const res = await request(t.baseUrl).get(path).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ statusCode: 404, message: 'No such discovery document', error: 'Not Found' });
    }
  });

  it('lets a browser preflight the discovery documents', async () => {
    const res = await request(t.baseUrl)
      .options('/.well-known/oauth-protected-resource/api/mcp')
      .set('Origin', 'http://localhost:6274')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'mcp-protocol-version');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('reports live and ready without a credential', async () => {
    await request(t.baseUrl).get('/health/live').expect(200, { status: 'ok' });
    await request(t.baseUrl).get('/health/ready').expect(200, { status: 'ok', database: 'ok' });
  });
});
