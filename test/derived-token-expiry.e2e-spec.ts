import request from 'supertest';
import { adminRest, signupOverHttp, SignedUp } from './factories/rest';
import { listToolsRaw } from './helpers/mcp-raw';
import { startTestApp, TestApp } from './helpers/test-app';

const DAY = 86_400_000;

describe('a derived token with an expiry chosen when it is derived; secrets told apart by their last four characters', () => {
  let t: TestApp;
  let admin: SignedUp;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await signupOverHttp(t);
  });
  afterAll(() => t.close());

  const { post, get } = adminRest(() => t.baseUrl, () => admin);

  async function mcp(token: string): Promise<{ status: number; challenge: string | null; body: string }> {
    const res = await listToolsRaw(t.baseUrl, token);
    return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.text() };
  }

  async function keyAndProject(name: string) {
    const project = (await post('/projects', { name }).expect(201)).body as { id: string };
    const key = (await post('/agent-service-keys', { name: `${name} key` }).expect(201)).body as { id: string };
    return { project, key };
  }

  it('derives a token with expiresAt: it works until then, is listed with its expiry and last four, then is refused like a revoked one', async () => {
    const { project, key } = await keyAndProject('Expiring');
    const expiresAt = new Date(Date.now() + 30 * DAY).toISOString();
    const derived = await post(`/agent-service-keys/${key.id}/tokens`, { projectId: project.id, expiresAt }).expect(201);
    expect(derived.body).toMatchObject({ projectId: project.id, expiresAt });
    const token = derived.body.token as string;
    expect((await mcp(token)).status).toBe(200);

    const listed = await get(`/agent-service-keys/${key.id}/tokens`).expect(200);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ id: derived.body.id, status: 'active', expiresAt, secretHint: `dga_…${token.slice(-4)}` }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(token);

    // Time passes: the chosen expiry is behind us.
    await t.dataSource.query(`UPDATE agent_tokens SET valid_until = now() - interval '1 second' WHERE id = $1`, [derived.body.id]);
    const expired = await mcp(token);
    expect(expired.status).toBe(401);

    // The same answer as a revoked token's.
    const other = await keyAndProject('Revoked');
    const revokedToken = (await post(`/agent-service-keys/${other.key.id}/tokens`, { projectId: other.project.id }).expect(201)).body;
    await post(`/agent-service-keys/${other.key.id}/tokens/${revokedToken.id}/revoke`).expect(200);
    const revoked = await mcp(revokedToken.token);
    expect(expired.status).toBe(revoked.status);
    expect(expired.challenge).toBe(revoked.challenge);
    expect(expired.body).toBe(revoked.body);

    const after = await get(`/agent-service-keys/${key.id}/tokens`).expect(200);
    expect(after.body.items[0]).toMatchObject({ id: derived.body.id, status: 'expired' });
    // An expired token cannot be rotated back to life; a new one can be derived for the project.
    await post(`/agent-service-keys/${key.id}/tokens/${derived.body.id}/rotate`, { overlapSeconds: 0 }).expect(409);
    const again = await post(`/agent-service-keys/${key.id}/tokens`, { projectId: project.id }).expect(201);
    expect(again.body.expiresAt).toBeNull();
    expect((await mcp(again.body.token)).status).toBe(200);
    expect((await mcp(token)).status).toBe(401);
    const both = await get(`/agent-service-keys/${key.id}/tokens`).expect(200);
    expect(both.body.items.map((i: { status: string }) => i.status)).toEqual(['expired', 'active']);
  });

  it('keeps the expiry through a rotation, and the token rotating out never outlives it', async () => {
    const { project, key } = await keyAndProject('Rotating');
    const expiresAt = new Date(Date.now() + 10 * DAY).toISOString();
    const first = (await post(`/agent-service-keys/${key.id}/tokens`, { projectId: project.id, expiresAt }).expect(201)).body;
    const rotated = await post(`/agent-service-keys/${key.id}/tokens/${first.id}/rotate`, { overlapSeconds: 3600 }).expect(201);
    expect(rotated.body.expiresAt).toBe(expiresAt);
    expect((await mcp(first.token)).status).toBe(200);
    await t.dataSource.query(`UPDATE agent_tokens SET valid_until = now() - interval '1 second' WHERE id = $1`, [first.id]);
    expect((await mcp(first.token)).status).toBe(401);
    expect((await mcp(rotated.body.token)).status).toBe(200);
  });

  it('refuses an expiry that is not a future ISO 8601 time with a 400 naming the field', async () => {
    const { project, key } = await keyAndProject('Bad expiry');
    for (const [expiresAt, message] of [
      ['2020-01-01T00:00:00Z', 'expiresAt must be in the future'],
      ['tomorrow', 'expiresAt must be an ISO 8601 date-time'],
      [42, 'expiresAt must be an ISO 8601 date-time'],
    ] as const) {
      const res = await post(`/agent-service-keys/${key.id}/tokens`, { projectId: project.id, expiresAt }).expect(400);
      expect(res.body.message).toEqual(expect.arrayContaining([message]));
    }
    const rows = await t.dataSource.query(`SELECT count(*)::int AS n FROM agent_tokens WHERE service_key_id = $1`, [key.id]);
    expect(rows[0].n).toBe(0);
  });

  it('lists secrets made before their last four were kept with the prefix only', async () => {
    const { project, key } = await keyAndProject('Older');
    const derived = (await post(`/agent-service-keys/${key.id}/tokens`, { projectId: project.id }).expect(201)).body;
    await t.dataSource.query(`UPDATE agent_tokens SET secret_last4 = NULL WHERE id = $1`, [derived.id]);
    const listed = await get(`/agent-service-keys/${key.id}/tokens`).expect(200);
    expect(listed.body.items[0].secretHint).toBe('dga_…');
    const created = await post('/api-keys', { name: 'older', permissions: ['projects:read'] }).expect(201);
    await t.dataSource.query(`UPDATE api_keys SET secret_last4 = NULL WHERE id = $1`, [created.body.id]);
    const keys = await request(t.baseUrl).get(`/api/organizations/${admin.organization.id}/api-keys`).set('Authorization', `Bearer ${admin.accessToken}`).expect(200);
    expect(keys.body.items.find((k: { id: string }) => k.id === created.body.id).secretHint).toBe('rk_…');
  });
});
