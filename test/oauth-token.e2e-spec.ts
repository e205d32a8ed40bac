import { randomUUID } from 'node:crypto';
import { hashToken } from '@app/credential-store';
import { startTestApp, TestApp } from './helpers/test-app';
import { authorizeCode, connectClient, createPersonWithProject, registerClient, TestBrowser, tokenRequest } from './factories/oauth';
import { NO_STORE_JSON } from './fixtures/oauth';

const ALL = 'project:read tasks:read tasks:write tasks:delete';

async function tokenState(t: TestApp, accessToken: string) {
  const [row] = await t.dataSource.query('SELECT revoked_at IS NOT NULL AS revoked FROM agent_tokens WHERE token_hash = $1', [hashToken(accessToken)]);
  return row as { revoked: boolean };
}

async function grantOf(t: TestApp, accessToken: string): Promise<string> {
  const [row] = await t.dataSource.query('SELECT grant_id FROM agent_tokens WHERE token_hash = $1', [hashToken(accessToken)]);
  return row.grant_id;
}

describe('OAuth token endpoint (SPEC §5)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterAll(() => t.close());

  /** A person signed in through the login page, a registered client and a fresh code. */
  async function freshCode(clientMetadata: Record<string, unknown> = {}) {
    const person = await createPersonWithProject(t);
    const browser = new TestBrowser(t.baseUrl);
    await browser.login(person.user.email, person.user.password);
    const client = await registerClient(t.baseUrl, clientMetadata);
    const code = await authorizeCode(t, { browser, client, projectId: person.project.id });
    return { person, client, ...code };
  }

  describe('authorization_code', () => {
    it('exchanges a code for a dga_/dgr_ pair bound to the chosen project and permissions', async () => {
      const person = await createPersonWithProject(t);
      const browser = new TestBrowser(t.baseUrl);
      await browser.login(person.user.email, person.user.password);
      const client = await registerClient(t.baseUrl);
      const { code, verifier, redirectUri } = await authorizeCode(t, { browser, client, projectId: person.project.id, permissions: ['tasks:read', 'project:read'] });
      const res = await tokenRequest(t.baseUrl, {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: client.client_id,
        resource: `${t.baseUrl}/api/mcp/`,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe(NO_STORE_JSON['cache-control']);
      expect(res.headers.get('pragma')).toBe(NO_STORE_JSON.pragma);
      expect(res.body).toEqual({
        access_token: expect.stringMatching(/^dga_[0-9A-Za-z]{49}$/),
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: expect.stringMatching(/^dgr_[0-9A-Za-z]{49}$/),
        scope: 'project:read tasks:read',
      });
      const [row] = await t.dataSource.query(
        `SELECT source, project_id, organization_id, permissions, user_id, client_id, grant_id,
                round(extract(epoch FROM expires_at - created_at)) AS ttl
           FROM agent_tokens WHERE token_hash = $1`,
        [hashToken(res.body.access_token as string)],
      );
      expect(row).toEqual({
        source: 'oauth',
        project_id: person.project.id,
        organization_id: person.organization.id,
        permissions: ['project:read', 'tasks:read'],
        user_id: person.user.id,
        client_id: client.client_id,
        grant_id: expect.any(String),
        ttl: '3600',
      });
      const [refresh] = await t.dataSource.query(
        'SELECT grant_id, issued_by, round(extract(epoch FROM expires_at - created_at)) AS ttl FROM oauth_refresh_tokens WHERE token_hash = $1',
        [hashToken(res.body.refresh_token as string)],
      );
      expect(refresh).toEqual({ grant_id: row.grant_id, issued_by: 'authorization_code', ttl: '2592000' });
    });

    it('accepts a JSON body too', async () => {
      const { client, code, verifier, redirectUri } = await freshCode();
      const res = await fetch(`${t.baseUrl}/api/agent/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { token_type: string }).token_type).toBe('Bearer');
    });

    it('refuses a wrong code_verifier, and the code is then spent', async () => {
      const { client, code, verifier, redirectUri } = await freshCode();
      const wrong = await tokenRequest(t.baseUrl, {
        grant_type: 'authorization_code', code, code_verifier: `${verifier.slice(0, -1)}${verifier.endsWith('A') ? 'B' : 'A'}`, redirect_uri: redirectUri, client_id: client.client_id,
      });
      expect(wrong.status).toBe(400);
      expect(wrong.headers.get('cache-control')).toBe('no-store');
      expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge' });
      const retry = await tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id });
      expect(retry.body.error).toBe('invalid_grant');
    });

    it('refuses a missing code_verifier', async () => {
      const { client, code, redirectUri } = await freshCode();
      const res = await tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: 'code_verifier is required (PKCE)' });
    });

    it('refuses a replayed code and revokes every token issued from it', async () => {
      const { client, code, verifier, redirectUri, person } = await freshCode();
      const form = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id };
      const first = await tokenRequest(t.baseUrl, form);
      expect(first.status).toBe(200);
      const replay = await tokenRequest(t.baseUrl, form);
      expect(replay.status).toBe(400);
      expect(replay.body).toEqual({
        error: 'invalid_grant',
        error_description: 'The authorization code was already used; every token issued from it has been revoked',
      });
      expect(await tokenState(t, first.body.access_token as string)).toEqual({ revoked: true });
      const refresh = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string, client_id: client.client_id });
      expect(refresh.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token has been revoked' });
      const events = await t.dataSource.query(
        "SELECT metadata->>'reason' AS reason FROM audit_events WHERE action = 'grant.revoked' AND project_id = $1",
        [person.project.id],
      );
      expect(events).toEqual([{ reason: 'authorization_code_replay' }]);
    });

    it('binds the code to its client, redirect URI and resource', async () => {
      const { client, code, verifier, redirectUri } = await freshCode();
      const other = await registerClient(t.baseUrl);
      const res = await tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: other.client_id });
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code was issued to another client' });

      const second = await freshCode();
      const mismatch = await tokenRequest(t.baseUrl, {
        grant_type: 'authorization_code', code: second.code, code_verifier: second.verifier, redirect_uri: 'http://127.0.0.1:8976/other', client_id: second.client.client_id,
      });
      expect(mismatch.body).toEqual({ error: 'invalid_grant', error_description: 'redirect_uri does not match the one of the authorization request' });

      const third = await freshCode();
      const target = await tokenRequest(t.baseUrl, {
        grant_type: 'authorization_code', code: third.code, code_verifier: third.verifier, redirect_uri: third.redirectUri, client_id: third.client.client_id,
        resource: 'https://other.example/api/mcp',
      });
      expect(target.status).toBe(400);
      expect(target.body).toEqual({ error: 'invalid_target', error_description: `resource must be ${t.baseUrl}/api/mcp` });
    });

    it('refuses an unknown client with 401 invalid_client', async () => {
      const res = await tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code: 'dgc_x', code_verifier: 'v', client_id: randomUUID() });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed: unknown client' });
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it('answers unsupported and missing grant types', async () => {
      const none = await tokenRequest(t.baseUrl, {});
      expect(none.body).toEqual({ error: 'invalid_request', error_description: 'grant_type is required' });
      const password = await tokenRequest(t.baseUrl, { grant_type: 'password' });
      expect(password.status).toBe(400);
      expect(password.body).toEqual({
        error: 'unsupported_grant_type',
        error_description: 'grant_type password is not supported; use authorization_code, refresh_token or urn:ietf:params:oauth:grant-type:jwt-bearer',
      });
    });
  });

  describe('confidential clients', () => {
    it('authenticate with client_secret_basic, form-url-decoded (RFC 6749 §2.3.1)', async () => {
      const { client, code, verifier, redirectUri } = await freshCode({ token_endpoint_auth_method: 'client_secret_basic' });
      const encodedId = client.client_id.replace(/-/g, '%2D');
      const basic = `Basic ${Buffer.from(`${encodedId}:${client.client_secret}`).toString('base64')}`;
      const res = await tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri }, { authorization: basic });
      expect(res.status).toBe(200);
    });

    it('authenticate with client_secret_post', async () => {
      const { client, code, verifier, redirectUri } = await freshCode({ token_endpoint_auth_method: 'client_secret_post' });
      const res = await tokenRequest(t.baseUrl, {
        grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id, client_secret: client.client_secret,
      });
      expect(res.status).toBe(200);
    });

    it('refuses a wrong or missing secret with 401 invalid_client (WWW-Authenticate when Basic was used)', async () => {
      const { client, code, verifier, redirectUri } = await freshCode({ token_endpoint_auth_method: 'client_secret_basic' });
      const form = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri };
      const wrongBasic = await tokenRequest(t.baseUrl, form, {
        authorization: `Basic ${Buffer.from(`${client.client_id}:dgs_wrong`).toString('base64')}`,
      });
      expect(wrongBasic.status).toBe(401);
      expect(wrongBasic.headers.get('www-authenticate')).toBe('Basic realm="agent-gateway", charset="UTF-8"');
      expect(wrongBasic.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
      const wrongPost = await tokenRequest(t.baseUrl, { ...form, client_id: client.client_id, client_secret: 'dgs_wrong' });
      expect(wrongPost.status).toBe(401);
      expect(wrongPost.headers.get('www-authenticate')).toBeNull();
      const missing = await tokenRequest(t.baseUrl, { ...form, client_id: client.client_id });
      expect(missing.status).toBe(401);
      expect(missing.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed: this client must authenticate with its client_secret' });
      const ok = await tokenRequest(t.baseUrl, { ...form, client_id: client.client_id, client_secret: client.client_secret });
      expect(ok.status).toBe(200);
    });
  });

  describe('refresh_token', () => {
    it('rotates: a new pair, the old token rotated, the same grant', async () => {
      const c = await connectClient(t);
      const res = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body).toEqual({
        access_token: expect.stringMatching(/^dga_/),
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: expect.stringMatching(/^dgr_/),
        scope: ALL,
      });
      expect(res.body.refresh_token).not.toBe(c.refreshToken);
      expect(await grantOf(t, res.body.access_token as string)).toBe(await grantOf(t, c.accessToken));
      const [old] = await t.dataSource.query('SELECT rotated_at IS NOT NULL AS rotated FROM oauth_refresh_tokens WHERE token_hash = $1', [hashToken(c.refreshToken)]);
      expect(old).toEqual({ rotated: true });
    });

    it('gives a reuse inside the grace window a fresh pair in the same grant', async () => {
      const c = await connectClient(t);
      const form = { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id };
      const first = await tokenRequest(t.baseUrl, form);
      const reuse = await tokenRequest(t.baseUrl, form);
      expect(reuse.status).toBe(200);
      expect(reuse.body.refresh_token).not.toBe(first.body.refresh_token);
      expect(await grantOf(t, reuse.body.access_token as string)).toBe(await grantOf(t, c.accessToken));
      expect(await tokenState(t, first.body.access_token as string)).toEqual({ revoked: false });
      const children = await t.dataSource.query(
        `SELECT c.issued_by FROM oauth_refresh_tokens c JOIN oauth_refresh_tokens p ON p.id = c.parent_id
          WHERE p.token_hash = $1 ORDER BY c.created_at, c.issued_by`,
        [hashToken(c.refreshToken)],
      );
      expect(children.map((r: { issued_by: string }) => r.issued_by).sort()).toEqual(['grace', 'rotation']);
    });

    it('revokes the whole grant on a reuse after the grace window and audits it', async () => {
      const c = await connectClient(t);
      const form = { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id };
      const rotated = await tokenRequest(t.baseUrl, form);
      expect(rotated.status).toBe(200);
      await t.dataSource.query("UPDATE oauth_refresh_tokens SET rotated_at = rotated_at - interval '31 seconds' WHERE token_hash = $1", [hashToken(c.refreshToken)]);
      const reuse = await tokenRequest(t.baseUrl, form);
      expect(reuse.status).toBe(400);
      expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token was already used; the grant has been revoked' });
      expect(await tokenState(t, c.accessToken)).toEqual({ revoked: true });
      expect(await tokenState(t, rotated.body.access_token as string)).toEqual({ revoked: true });
      const next = await tokenRequest(t.baseUrl, { ...form, refresh_token: rotated.body.refresh_token as string });
      expect(next.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token has been revoked' });
      const grantId = await grantOf(t, c.accessToken);
      const events = await t.dataSource.query(
        "SELECT action, organization_id, project_id, actor_type, actor_id FROM audit_events WHERE target_id = $1 ORDER BY created_at",
        [grantId],
      );
      expect(events).toEqual([
        { action: 'consent.approved', organization_id: c.organization.id, project_id: c.project.id, actor_type: 'user', actor_id: c.user.id },
        { action: 'grant.revoked', organization_id: c.organization.id, project_id: c.project.id, actor_type: 'oauth_client', actor_id: c.client.client_id },
        { action: 'refresh_token.reuse_detected', organization_id: c.organization.id, project_id: c.project.id, actor_type: 'oauth_client', actor_id: c.client.client_id },
      ]);
    });

    it('lets exactly one of 20 concurrent refreshes rotate; the other 19 get grace pairs in the same grant', async () => {
      const c = await connectClient(t);
      const form = { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id };
      const results = await Promise.all(Array.from({ length: 20 }, () => tokenRequest(t.baseUrl, form)));
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(results.map((r) => r.body.refresh_token)).size).toBe(20);
      expect(new Set(results.map((r) => r.body.access_token)).size).toBe(20);
      const children = await t.dataSource.query(
        `SELECT c.issued_by, count(*)::int AS n FROM oauth_refresh_tokens c JOIN oauth_refresh_tokens p ON p.id = c.parent_id
          WHERE p.token_hash = $1 GROUP BY c.issued_by ORDER BY c.issued_by`,
        [hashToken(c.refreshToken)],
      );
      expect(children).toEqual([
        { issued_by: 'grace', n: 19 },
        { issued_by: 'rotation', n: 1 },
      ]);
      const grants = new Set(await Promise.all(results.map((r) => grantOf(t, r.body.access_token as string))));
      expect([...grants]).toEqual([await grantOf(t, c.accessToken)]);
    });

    it('narrows the scope on request, never widens it', async () => {
      const c = await connectClient(t, { permissions: ['project:read', 'tasks:read'] });
      const narrow = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id, scope: 'tasks:read offline_access' });
      expect(narrow.status).toBe(200);
      expect(narrow.body.scope).toBe('tasks:read');
      const [row] = await t.dataSource.query('SELECT permissions FROM agent_tokens WHERE token_hash = $1', [hashToken(narrow.body.access_token as string)]);
      expect(row.permissions).toEqual(['tasks:read']);

      const widen = await tokenRequest(t.baseUrl, {
        grant_type: 'refresh_token', refresh_token: narrow.body.refresh_token as string, client_id: c.client.client_id, scope: 'tasks:read tasks:write',
      });
      expect(widen.status).toBe(400);
      expect(widen.body).toEqual({
        error: 'invalid_scope',
        error_description: 'The grant does not include tasks:write; a refresh may narrow the scope, never widen it',
      });

      const full = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: narrow.body.refresh_token as string, client_id: c.client.client_id });
      expect(full.status).toBe(200);
      expect(full.body.scope).toBe('project:read tasks:read');
    });

    it('refuses another client presenting the token, without burning it', async () => {
      const c = await connectClient(t);
      const other = await registerClient(t.baseUrl);
      const res = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: other.client_id });
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token is invalid' });
      const own = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id });
      expect(own.status).toBe(200);
    });

    it('refuses a grant whose person left the organisation or whose project was deleted', async () => {
      const left = await connectClient(t);
      await t.dataSource.query('DELETE FROM memberships WHERE user_id = $1 AND organization_id = $2', [left.user.id, left.organization.id]);
      const res = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: left.refreshToken, client_id: left.client.client_id });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The person who approved this grant can no longer reach its project' });

      const gone = await connectClient(t);
      await t.dataSource.query('UPDATE projects SET deleted_at = now() WHERE id = $1', [gone.project.id]);
      const res2 = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: gone.refreshToken, client_id: gone.client.client_id });
      expect(res2.body).toEqual({ error: 'invalid_grant', error_description: 'The person who approved this grant can no longer reach its project' });
    });

    it('refuses malformed and unknown refresh tokens', async () => {
      const client = await registerClient(t.baseUrl);
      for (const token of ['dgr_garbage', `dgr_${'A'.repeat(49)}`]) {
        const res = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id });
        expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token is invalid' });
      }
    });
  });

  describe('revocation (RFC 7009)', () => {
    const revoke = (form: Record<string, string>) =>
      fetch(`${t.baseUrl}/api/agent/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });

    it('a refresh token revokes its grant and every access token of it', async () => {
      const c = await connectClient(t);
      const res = await revoke({ token: c.refreshToken, token_type_hint: 'refresh_token', client_id: c.client.client_id });
      expect(res.status).toBe(200);
      expect(await tokenState(t, c.accessToken)).toEqual({ revoked: true });
      const refresh = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id });
      expect(refresh.body.error).toBe('invalid_grant');
    });

    it('an access token revokes only itself', async () => {
      const c = await connectClient(t);
      expect((await revoke({ token: c.accessToken, client_id: c.client.client_id })).status).toBe(200);
      expect(await tokenState(t, c.accessToken)).toEqual({ revoked: true });
      const refresh = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id });
      expect(refresh.status).toBe(200);
    });

    it('answers 200 to unknown tokens and changes nothing for another client', async () => {
      const c = await connectClient(t);
      const other = await registerClient(t.baseUrl);
      expect((await revoke({ token: 'dgr_unknown', client_id: c.client.client_id })).status).toBe(200);
      expect((await revoke({ token: 'whatever' })).status).toBe(200);
      expect((await revoke({ token: c.refreshToken, client_id: other.client_id })).status).toBe(200);
      expect(await tokenState(t, c.accessToken)).toEqual({ revoked: false });
      const missing = await revoke({});
      expect(missing.status).toBe(400);
      expect(await missing.json()).toEqual({ error: 'invalid_request', error_description: 'token is required' });
    });
  });
});

describe('OAuth lifetimes from configuration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_CODE_TTL_SECONDS: '1', REFRESH_REUSE_GRACE_SECONDS: '0', REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterAll(() => t.close());

  it('refuses an expired authorization code', async () => {
    const person = await createPersonWithProject(t);
    const browser = new TestBrowser(t.baseUrl);
    await browser.login(person.user.email, person.user.password);
    const client = await registerClient(t.baseUrl);
    const { code, verifier, redirectUri } = await authorizeCode(t, { browser, client, projectId: person.project.id });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await tokenRequest(t.baseUrl, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code has expired' });
  });

  it('without a grace window, 20 concurrent refreshes: one rotation wins, every reuse revokes the grant', async () => {
    const c = await connectClient(t);
    const form = { grant_type: 'refresh_token', refresh_token: c.refreshToken, client_id: c.client.client_id };
    const results = await Promise.all(Array.from({ length: 20 }, () => tokenRequest(t.baseUrl, form)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(1);
    expect(refused.map((r) => r.body.error)).toEqual(Array(19).fill('invalid_grant'));
    expect(await tokenState(t, ok[0].body.access_token as string)).toEqual({ revoked: true });
    const [grant] = await t.dataSource.query('SELECT revoked_at IS NOT NULL AS revoked FROM oauth_grants WHERE id = $1', [await grantOf(t, c.accessToken)]);
    expect(grant).toEqual({ revoked: true });
    const rotations = await t.dataSource.query(
      `SELECT c.issued_by FROM oauth_refresh_tokens c JOIN oauth_refresh_tokens p ON p.id = c.parent_id WHERE p.token_hash = $1`,
      [hashToken(c.refreshToken)],
    );
    expect(rotations).toEqual([{ issued_by: 'rotation' }]);
  });
});
