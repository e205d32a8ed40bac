import { hashToken } from '@app/credentials';
import { startTestApp, TestApp } from './helpers/test-app';
import { connectClient, tokenRequest } from './factories/oauth';

describe('OAuth token endpoint: code exchange and refresh (SPEC §5)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterAll(() => t.close());

  it('exchanges a code for a dga_/dgr_ pair bound to the chosen project', async () => {
    const c = await connectClient(t, { permissions: ['project:read', 'tasks:read'] });
    expect(c.accessToken).toMatch(/^dga_/);
    expect(c.refreshToken).toMatch(/^dgr_/);
    const [row] = await t.dataSource.query(
      'SELECT source, project_id, organization_id, permissions, user_id, client_id, grant_id, expires_at FROM agent_tokens WHERE token_hash = $1',
      [hashToken(c.accessToken)],
    );
    expect(row).toMatchObject({
      source: 'oauth',
      project_id: c.project.id,
      organization_id: c.organization.id,
      permissions: ['project:read', 'tasks:read'],
      user_id: c.user.id,
      client_id: c.client.client_id,
    });
    expect(row.grant_id).toEqual(expect.any(String));
  });

  it('rotates a refresh token', async () => {
    const c = await connectClient(t);
    const res = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^dga_/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^dgr_/),
      scope: 'project:read tasks:read tasks:write tasks:delete',
    });
  });
});
