import request from 'supertest';
import { hashToken } from '@app/credential-store';
import { startTestApp, TestApp } from './helpers/test-app';

const REGISTER = '/api/agent/oauth/register';

describe('OAuth dynamic client registration (RFC 7591, SPEC §5)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterAll(() => t.close());

  it('registers a public client by default, ignores unknown metadata and audits it', async () => {
    const res = await request(t.baseUrl)
      .post(REGISTER)
      .send({
        client_name: 'Claude',
        redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: 'project:read offline_access',
        logo_uri: 'https://claude.ai/logo.png',
        software_statement_extra: { anything: true },
      })
      .expect(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      client_id: expect.any(String),
      client_id_issued_at: expect.any(Number),
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const events = await t.dataSource.query(
      "SELECT organization_id, actor_type, target_type, metadata FROM audit_events WHERE action = 'oauth_client.registered' AND target_id = $1",
      [res.body.client_id],
    );
    expect(events).toEqual([
      {
        organization_id: null,
        actor_type: 'anonymous',
        target_type: 'oauth_client',
        metadata: {
          clientName: 'Claude',
          redirectUris: ['https://claude.ai/api/mcp/auth_callback'],
          tokenEndpointAuthMethod: 'none',
        },
      },
    ]);
  });

  it.each(['client_secret_basic', 'client_secret_post'])('gives a %s client a dgs_ secret once, storing only its hash', async (method) => {
    const res = await request(t.baseUrl)
      .post(REGISTER)
      .send({ redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: method })
      .expect(201);
    expect(res.body.client_secret).toMatch(/^dgs_[0-9A-Za-z]{49}$/);
    expect(res.body.client_secret_expires_at).toBe(0);
    expect(res.body.token_endpoint_auth_method).toBe(method);
    expect(res.body.client_name).toBe('Unnamed application');
    const [row] = await t.dataSource.query('SELECT client_secret_hash FROM oauth_clients WHERE client_id = $1', [res.body.client_id]);
    expect(row.client_secret_hash).toBe(hashToken(res.body.client_secret));
    const audit = await t.dataSource.query('SELECT metadata::text AS m FROM audit_events WHERE target_id = $1', [res.body.client_id]);
    expect(audit[0].m).not.toContain(res.body.client_secret);
  });

  it.each([
    'https://vscode.dev/redirect',
    'http://127.0.0.1:33418/',
    'http://127.0.0.1/callback',
    'http://[::1]:8080/cb',
    'http://localhost:6274/oauth/callback',
    'cursor://anysphere.cursor-retrieval/oauth/user-agent-gateway/callback',
    'vscode://vscode.github-authentication/did-authenticate',
    'com.example.app:/oauth2redirect',
    'https://app.example.com/cb?tenant=1',
  ])('accepts the redirect URI %s', async (uri) => {
    const res = await request(t.baseUrl).post(REGISTER).send({ redirect_uris: [uri] }).expect(201);
    expect(res.body.redirect_uris).toEqual([uri]);
  });

  it.each([
    ['javascript:alert(1)', 'Redirect URI javascript:alert(1) the scheme javascript: is not allowed'],
    ['JavaScript://%0aalert(1)', 'Redirect URI JavaScript://%0aalert(1) the scheme javascript: is not allowed'],
    ['data:text/html,<script>alert(1)</script>', 'Redirect URI data:text/html,<script>alert(1)</script> the scheme data: is not allowed'],
    ['file:///etc/passwd', 'Redirect URI file:///etc/passwd the scheme file: is not allowed'],
    ['vbscript:msgbox(1)', 'Redirect URI vbscript:msgbox(1) the scheme vbscript: is not allowed'],
    ['http://app.example.com/cb', 'Redirect URI http://app.example.com/cb http is only allowed on a loopback host (127.0.0.1, [::1], localhost); use https'],
    ['https://app.example.com/cb#frag', 'Redirect URI https://app.example.com/cb#frag must not contain a fragment'],
    ['https://user:pw@app.example.com/cb', 'Redirect URI https://user:pw@app.example.com/cb must not contain credentials'],
    ['/relative/path', 'Redirect URI /relative/path must be an absolute URI with a scheme'],
  ])('refuses the redirect URI %s', async (uri, description) => {
    const res = await request(t.baseUrl).post(REGISTER).send({ redirect_uris: ['https://ok.example.com/cb', uri] }).expect(400);
    expect(res.body).toEqual({ error: 'invalid_redirect_uri', error_description: description });
  });

  it('refuses a registration without redirect URIs', async () => {
    const res = await request(t.baseUrl).post(REGISTER).send({ client_name: 'x' }).expect(400);
    expect(res.body).toEqual({ error: 'invalid_redirect_uri', error_description: 'redirect_uris must be a non-empty array of redirect URIs' });
  });

  it('refuses unsupported client metadata values', async () => {
    const method = await request(t.baseUrl)
      .post(REGISTER)
      .send({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'private_key_jwt' })
      .expect(400);
    expect(method.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'token_endpoint_auth_method must be one of none, client_secret_post, client_secret_basic',
    });
    const grants = await request(t.baseUrl)
      .post(REGISTER)
      .send({ redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] })
      .expect(400);
    expect(grants.body.error).toBe('invalid_client_metadata');
  });

  it('lets a browser-based client preflight and call registration cross-origin', async () => {
    const pre = await request(t.baseUrl)
      .options(REGISTER)
      .set('Origin', 'http://localhost:6274')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('registration rate limit per IP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After past the limit, per address', async () => {
    const from = (ip: string) =>
      request(t.baseUrl).post(REGISTER).set('X-Forwarded-For', ip).send({ redirect_uris: ['http://127.0.0.1/cb'] });
    for (let i = 0; i < 3; i++) await from('203.0.113.7').expect(201);
    const limited = await from('203.0.113.7').expect(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body).toEqual({
      error: 'temporarily_unavailable',
      error_description: `Too many client registrations from this address; retry in ${retryAfter} s`,
    });
    await from('203.0.113.8').expect(201);
  });
});
