import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { OAuthCleanupService } from '@app/oauth';
import { RateLimitService } from '@app/rate-limit';
import { createAgentToken } from './factories';
import { connectClient, tokenRequest } from './factories/oauth';
import { GrantRef, grantOfClient, insertAccessToken, insertCode, insertConsentRequest, insertRefreshToken } from './factories/oauth-rows';
import { startTestApp, TestApp } from './helpers/test-app';

const TABLES = {
  authorizationCodes: 'oauth_authorization_codes',
  authorizationRequests: 'oauth_authorization_requests',
  refreshTokens: 'oauth_refresh_tokens',
  accessTokens: 'agent_tokens',
  unusedClients: 'oauth_clients',
} as const;
type Kind = keyof typeof TABLES;

describe('periodic cleanup of expired OAuth rows', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No timer: the test calls the cleanup itself.
    t = await startTestApp({ CLEANUP_INTERVAL_SECONDS: '0', REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000', REFRESH_REUSE_GRACE_SECONDS: '0' });
  });
  afterAll(() => t.close());

  const ids = async (kind: Kind): Promise<Set<string>> => {
    const key = kind === 'unusedClients' ? 'client_id' : 'id';
    const rows: { id: string }[] = await t.dataSource.query(`SELECT ${key} AS id FROM ${TABLES[kind]}`);
    return new Set(rows.map((r) => r.id));
  };
  const count = async (table: string) => Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n);
  const sessionOf = async (userId: string) => (await t.app.get(SessionTokenService).issue(userId)).accessToken;
  const connectedClients = async (userId: string) =>
    (await request(t.baseUrl).get('/api/me/agent-grants').auth(await sessionOf(userId), { type: 'bearer' }).expect(200)).body;

  async function revokeByClient(c: { client: { client_id: string }; refreshToken: string }) {
    const res = await fetch(`${t.baseUrl}/api/agent/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: c.refreshToken, client_id: c.client.client_id }).toString(),
    });
    expect(res.status).toBe(200);
  }

  it('deletes exactly what nothing will read again and keeps the rest, the audit trail untouched', async () => {
    // A live grant whose refresh token has been rotated once (the old one stays for reuse detection).
    const live = await connectClient(t);
    const rotated = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: live.refreshToken, client_id: live.client.client_id });
    expect(rotated.status).toBe(200);
    const g1 = await grantOfClient(t.dataSource, live.client.client_id);
    // A grant revoked two days ago, and one revoked just now.
    const old = await connectClient(t);
    await revokeByClient(old);
    const g2 = await grantOfClient(t.dataSource, old.client.client_id);
    await t.dataSource.query(`UPDATE oauth_grants SET revoked_at = now() - interval '2 days' WHERE id = $1`, [g2.id]);
    const recent = await connectClient(t);
    await revokeByClient(recent);
    const g3 = await grantOfClient(t.dataSource, recent.client.client_id);
    // A live grant whose newest access token is two days old, and an older one used after it was issued.
    const idle = await connectClient(t);
    const g4: GrantRef = await grantOfClient(t.dataSource, idle.client.client_id);
    await t.dataSource.query(
      `UPDATE agent_tokens SET created_at = now() - interval '2 days', expires_at = now() - interval '2 days' + interval '1 hour', last_used_at = NULL
        WHERE grant_id = $1`,
      [g4.id],
    );

    const doomed: Record<Kind, string[]> = { authorizationCodes: [], authorizationRequests: [], refreshTokens: [], accessTokens: [], unusedClients: [] };
    // Codes: unused and expired → go; unused and live → stay; used, expired an hour ago → stay
    // (replay detection); used, expired 25 hours ago → go; any code of the grant revoked two days ago → go.
    doomed.authorizationCodes.push(await insertCode(t.dataSource, g1, '-1 minute', false));
    await insertCode(t.dataSource, g1, '+4 minutes', false);
    await insertCode(t.dataSource, g1, '-1 hour', true);
    doomed.authorizationCodes.push(await insertCode(t.dataSource, g1, '-25 hours', true));
    doomed.authorizationCodes.push(...(await t.dataSource.query('SELECT id FROM oauth_authorization_codes WHERE grant_id = $1', [g2.id])).map((r: { id: string }) => r.id));
    await insertCode(t.dataSource, g3, '-1 minute', true);
    // Consent requests: pending → stays; expired → goes; decided → goes (the four flows' own approvals too).
    doomed.authorizationRequests.push(
      ...(await t.dataSource.query('SELECT id FROM oauth_authorization_requests WHERE decided_at IS NOT NULL')).map((r: { id: string }) => r.id),
    );
    await insertConsentRequest(t.dataSource, g1, '+5 minutes', false);
    doomed.authorizationRequests.push(await insertConsentRequest(t.dataSource, g1, '-1 minute', false));
    doomed.authorizationRequests.push(await insertConsentRequest(t.dataSource, g1, '+5 minutes', true));
    // Refresh tokens: rotated but within its lifetime → stays; expired an hour ago → stays;
    // expired 25 hours ago → goes; those of the grant revoked two days ago → go; revoked just now → stay.
    await insertRefreshToken(t.dataSource, g1, '+29 days', { rotated: true });
    await insertRefreshToken(t.dataSource, g1, '-1 hour');
    doomed.refreshTokens.push(await insertRefreshToken(t.dataSource, g1, '-25 hours', { rotated: true }));
    doomed.refreshTokens.push(...(await t.dataSource.query('SELECT id FROM oauth_refresh_tokens WHERE grant_id = $1', [g2.id])).map((r: { id: string }) => r.id));
    await insertRefreshToken(t.dataSource, g3, '+29 days', { revoked: true });
    // OAuth access tokens: expired days ago and superseded → go; the newest of a grant → stays even
    // expired; an old one last used after the newest was issued → stays; the grant revoked two
    // days ago → all go; of the grant revoked just now, the newest stays and an expired,
    // superseded one goes as on any grant; a token without a grant → stays.
    doomed.accessTokens.push(await insertAccessToken(t.dataSource, g1, '3 days', '2 days 23 hours'));
    doomed.accessTokens.push(await insertAccessToken(t.dataSource, g4, '3 days'));
    await insertAccessToken(t.dataSource, g4, '2 days 30 minutes', '1 day 23 hours 50 minutes');
    doomed.accessTokens.push(...(await t.dataSource.query('SELECT id FROM agent_tokens WHERE grant_id = $1', [g2.id])).map((r: { id: string }) => r.id));
    doomed.accessTokens.push(await insertAccessToken(t.dataSource, g3, '3 days'));
    await createAgentToken(t.dataSource, { id: g1.projectId, organizationId: g1.organizationId }, { expiresAt: new Date(Date.now() - 3 * 86400_000) });
    // Clients: registered two days ago and never authorised → goes; registered now → stays.
    const [stale] = await t.dataSource.query(
      `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, token_endpoint_auth_method, created_at)
       VALUES (gen_random_uuid()::text, 'Stale', '{http://127.0.0.1/cb}', '{authorization_code}', 'none', now() - interval '2 days') RETURNING client_id`,
    );
    doomed.unusedClients.push(stale.client_id);
    await t.dataSource.query(
      `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, token_endpoint_auth_method)
       VALUES (gen_random_uuid()::text, 'Fresh', '{http://127.0.0.1/cb}', '{authorization_code}', 'none')`,
    );

    const before = Object.fromEntries(await Promise.all(Object.keys(TABLES).map(async (k) => [k, await ids(k as Kind)]))) as Record<Kind, Set<string>>;
    for (const kind of Object.keys(TABLES) as Kind[]) for (const id of doomed[kind]) expect(before[kind].has(id)).toBe(true);
    const auditBefore = await count('audit_events');
    const grantsBefore = await count('oauth_grants');
    const idleListBefore = await connectedClients(g4.userId);
    expect(idleListBefore).toHaveLength(1);

    const report = await t.app.get(OAuthCleanupService).deleteExpired();

    for (const kind of Object.keys(TABLES) as Kind[]) {
      const expected = [...before[kind]].filter((id) => !doomed[kind].includes(id)).sort();
      expect({ kind, ids: [...(await ids(kind))].sort() }).toEqual({ kind, ids: expected });
    }
    expect(report).toEqual(Object.fromEntries(Object.entries(doomed).map(([k, v]) => [k, v.length])));
    expect(await count('audit_events')).toBe(auditBefore);
    expect(await count('oauth_grants')).toBe(grantsBefore);
    // The connected-clients list, and its "last used", are exactly as before.
    expect(await connectedClients(g4.userId)).toEqual(idleListBefore);
    expect(await connectedClients(g1.userId)).toHaveLength(1);

    // Nothing left to delete.
    expect(await t.app.get(OAuthCleanupService).deleteExpired()).toEqual({
      authorizationCodes: 0,
      authorizationRequests: 0,
      refreshTokens: 0,
      accessTokens: 0,
      unusedClients: 0,
    });

    // Reuse detection still works after the cleanup: the rotated refresh token revokes the grant.
    const reuse = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: live.refreshToken, client_id: live.client.client_id });
    expect(reuse.status).toBe(400);
    expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token was already used; the grant has been revoked' });
  });

  it('deletes rate-limit counters whose window has ended, and only those', async () => {
    await t.dataSource.query(
      `INSERT INTO rate_limit_counters (key, hits, window_ends_at) VALUES
         ('test:ended', 7, now() - interval '1 second'), ('test:live', 7, now() + interval '10 minutes')`,
    );
    const before: { key: string }[] = await t.dataSource.query('SELECT key FROM rate_limit_counters');
    const deleted = await t.app.get(RateLimitService).deleteExpired();
    const after: { key: string }[] = await t.dataSource.query('SELECT key FROM rate_limit_counters');
    const ended = before.map((r) => r.key).filter((k) => !after.some((a) => a.key === k));
    expect(ended).toEqual(['test:ended']);
    expect(deleted).toBe(1);
    expect(after.map((r) => r.key)).toContain('test:live');
  });
});

describe('cleanup run by several instances at once', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CLEANUP_INTERVAL_SECONDS: '0', REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
  });
  afterAll(() => t.close());

  it('deletes each row once, in batches, without failing', async () => {
    const c = await connectClient(t);
    const g = await grantOfClient(t.dataSource, c.client.client_id);
    await t.dataSource.query(
      `INSERT INTO oauth_authorization_requests
         (client_id, user_id, redirect_uri, redirect_uri_sent, code_challenge, requested_permissions, csrf_hash, expires_at)
       SELECT $1, $2, 'http://127.0.0.1/cb', true, 'challenge', '{project:read}', md5(i::text), now() - interval '1 minute'
         FROM generate_series(1, 2500) AS i`,
      [g.clientId, g.userId],
    );
    await t.dataSource.query(
      `INSERT INTO oauth_authorization_codes (code_hash, grant_id, client_id, redirect_uri, redirect_uri_sent, code_challenge, expires_at)
       SELECT md5(i::text), $1, $2, 'http://127.0.0.1/cb', true, 'challenge', now() - interval '1 minute'
         FROM generate_series(1, 1200) AS i`,
      [g.id, g.clientId],
    );
    const cleanup = t.app.get(OAuthCleanupService);
    const reports = await Promise.all([cleanup.deleteExpired(), cleanup.deleteExpired(), cleanup.deleteExpired()]);
    const sum = (k: 'authorizationRequests' | 'authorizationCodes') => reports.reduce((n, r) => n + r[k], 0);
    // 2,500 expired requests plus the flow's own decided one; 1,200 codes (the flow's used one is live).
    expect(sum('authorizationRequests')).toBe(2501);
    expect(sum('authorizationCodes')).toBe(1200);
    expect((await t.dataSource.query('SELECT count(*)::int AS n FROM oauth_authorization_requests'))[0].n).toBe(0);
    expect((await t.dataSource.query('SELECT count(*)::int AS n FROM oauth_authorization_codes'))[0].n).toBe(1);
  });
});
