import request from 'supertest';
import { adminRest, signupOverHttp, SignedUp } from './factories/rest';
import { listToolsRaw } from './helpers/mcp-raw';
import { startTestApp, TestApp } from './helpers/test-app';

const DAY = 24 * 60 * 60;

/**
 * Rotation with overlap (SPEC §8): a derived `dga_` token or an `rk_` key gets a new secret
 * while the old one keeps working until the overlap ends, then is refused like a revoked one.
 * Besides the active secret at most one more rotates out; revoking the key ends both.
 */
describe('credential rotation with overlap', () => {
  let t: TestApp;
  let admin: SignedUp;
  beforeAll(async () => {
    t = await startTestApp();
    admin = await signupOverHttp(t);
  });
  afterAll(() => t.close());

  const { org, post, get, serviceKeyToken } = adminRest(() => t.baseUrl, () => admin);

  /** The status a machine gets for `tools/list` with this secret: 200 while it works, 401 after. */
  async function mcpStatus(token: string): Promise<number> {
    const res = await listToolsRaw(t.baseUrl, token);
    await res.text();
    return res.status;
  }

  /** The status an `rk_` key gets for a read it is allowed: 200 while it works, 401 after. */
  async function restStatus(key: string): Promise<number> {
    return (await request(t.baseUrl).get(`${org()}/projects`).set('Authorization', `Bearer ${key}`)).status;
  }

  const keyWithToken = () => serviceKeyToken(`P ${Date.now()}`, 'rotating machine');

  /**
   * Polls every 50 ms until `check` answers 401; returns when that answer came. A request sent
   * after `deadline` that is still accepted fails (when it was sent, not when its answer came: on
   * a loaded machine an answer can take longer than the margin).
   */
  async function refusedAt(check: () => Promise<number>, deadline: number): Promise<number> {
    for (;;) {
      const sentAt = Date.now();
      const status = await check();
      if (status === 401) return Date.now();
      expect(status).toBe(200);
      if (sentAt > deadline) throw new Error('the old secret was still accepted after the overlap');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * The overlap of the tests that watch one end: long enough that the checks made during it (two
   * calls and a listing) fit in it on a loaded machine, where 2 s did not.
   */
  const SHORT_OVERLAP_SECONDS = 8;

  describe('derived project tokens', () => {
    it('keeps the old secret working until the overlap ends, then refuses it; the new one keeps working', async () => {
      const { project, key, derived } = await keyWithToken();
      const started = Date.now();
      const rotated = await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`, { overlapSeconds: SHORT_OVERLAP_SECONDS }).expect(201);
      expect(rotated.body).toMatchObject({ projectId: project.id, serviceKeyId: key.id, replacesTokenId: derived.id });
      expect(rotated.body.token).toMatch(/^dga_/);
      expect(rotated.body.token).not.toBe(derived.token);
      const until = Date.parse(rotated.body.rotatingOutUntil);
      expect(until - started).toBeGreaterThan((SHORT_OVERLAP_SECONDS - 1) * 1000);
      expect(until - started).toBeLessThan((SHORT_OVERLAP_SECONDS + 2) * 1000);

      expect(await mcpStatus(derived.token)).toBe(200);
      expect(await mcpStatus(rotated.body.token)).toBe(200);
      const listed = (await get(`/agent-service-keys/${key.id}/tokens`).expect(200)).body.items as Record<string, unknown>[];
      expect(listed).toEqual([
        expect.objectContaining({ id: derived.id, status: 'rotating_out', rotatingOutUntil: rotated.body.rotatingOutUntil, revokedAt: null }),
        expect.objectContaining({ id: rotated.body.id, status: 'active', rotatingOutUntil: null, revokedAt: null }),
      ]);

      const refused = await refusedAt(() => mcpStatus(derived.token), until + 1000);
      // Not before the overlap ended (same machine, same clock), and promptly after.
      expect(refused).toBeGreaterThanOrEqual(until - 20);
      expect(await mcpStatus(rotated.body.token)).toBe(200);
      const after = (await get(`/agent-service-keys/${key.id}`).expect(200)).body.tokens as Record<string, unknown>[];
      expect(after).toEqual([
        expect.objectContaining({ id: derived.id, status: 'revoked', rotatingOutUntil: null, revokedAt: rotated.body.rotatingOutUntil }),
        expect.objectContaining({ id: rotated.body.id, status: 'active' }),
      ]);
    });

    it('overlaps 24 hours by default and takes at most 7 days; a bad overlap is a 400 naming the field', async () => {
      const { key, derived } = await keyWithToken();
      for (const overlapSeconds of [7 * DAY + 1, -1, 1.5, '60', true]) {
        const res = await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`, { overlapSeconds }).expect(400);
        expect(JSON.stringify(res.body.message)).toContain('overlapSeconds');
      }
      const rotated = await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`).expect(201);
      const overlap = (Date.parse(rotated.body.rotatingOutUntil) - Date.parse(rotated.body.createdAt)) / 1000;
      expect(Math.abs(overlap - DAY)).toBeLessThan(60);

      const other = await keyWithToken();
      const longest = await post(`/agent-service-keys/${other.key.id}/tokens/${other.derived.id}/rotate`, { overlapSeconds: 7 * DAY }).expect(201);
      expect(Math.abs((Date.parse(longest.body.rotatingOutUntil) - Date.now()) / 1000 - 7 * DAY)).toBeLessThan(60);
    });

    it('allows one more token rotating out: a second rotation during the overlap is a 409 until the old one is revoked', async () => {
      const { key, derived } = await keyWithToken();
      const first = (await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`, { overlapSeconds: 3600 }).expect(201)).body;

      const again = await post(`/agent-service-keys/${key.id}/tokens/${first.id}/rotate`, { overlapSeconds: 60 }).expect(409);
      expect(again.body.code).toBe('project_token_rotating');
      expect(again.body.message).toContain(first.rotatingOutUntil);
      const old = await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`).expect(409);
      expect(old.body.code).toBe('project_token_not_active');
      // Deriving a second active token for the pair is still refused.
      expect((await post(`/agent-service-keys/${key.id}/tokens`, { projectId: first.projectId }).expect(409)).body.code).toBe(
        'project_token_exists',
      );

      await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/revoke`).expect(200);
      expect(await mcpStatus(derived.token)).toBe(401);
      const second = (await post(`/agent-service-keys/${key.id}/tokens/${first.id}/rotate`, { overlapSeconds: 60 }).expect(201)).body;
      expect(await mcpStatus(first.token)).toBe(200);
      expect(await mcpStatus(second.token)).toBe(200);
      const statuses = ((await get(`/agent-service-keys/${key.id}/tokens`).expect(200)).body.items as { status: string }[]).map(
        (x) => x.status,
      );
      expect(statuses).toEqual(['revoked', 'rotating_out', 'active']);
    });

    it('rotates again once the previous overlap has ended', async () => {
      const { key, derived } = await keyWithToken();
      const first = (await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`, { overlapSeconds: 1 }).expect(201)).body;
      await refusedAt(() => mcpStatus(derived.token), Date.parse(first.rotatingOutUntil) + 1000);
      const second = (await post(`/agent-service-keys/${key.id}/tokens/${first.id}/rotate`, { overlapSeconds: 60 }).expect(201)).body;
      expect(await mcpStatus(first.token)).toBe(200);
      expect(await mcpStatus(second.token)).toBe(200);
    });

    it('ends the active and the rotating-out token at once when the key is revoked', async () => {
      const { key, derived } = await keyWithToken();
      const rotated = (await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`, { overlapSeconds: 3600 }).expect(201)).body;
      expect(await mcpStatus(derived.token)).toBe(200);
      const revoked = await post(`/agent-service-keys/${key.id}/revoke`).expect(200);
      expect(revoked.body.revokedTokens).toBe(2);
      expect(await mcpStatus(derived.token)).toBe(401);
      expect(await mcpStatus(rotated.token)).toBe(401);
      const statuses = ((await get(`/agent-service-keys/${key.id}/tokens`).expect(200)).body.items as { status: string }[]).map(
        (x) => x.status,
      );
      expect(statuses).toEqual(['revoked', 'revoked']);
      expect((await post(`/agent-service-keys/${key.id}/tokens/${rotated.id}/rotate`).expect(409)).body.code).toBe('service_key_revoked');
    });

    it('revoking the new token during the overlap ends the old one rotating out too, in the same revocation', async () => {
      const { key, derived } = await keyWithToken();
      const rotated = (await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`, { overlapSeconds: 3600 }).expect(201)).body;
      expect(await mcpStatus(derived.token)).toBe(200);
      expect(await mcpStatus(rotated.token)).toBe(200);

      const revoked = await post(`/agent-service-keys/${key.id}/tokens/${rotated.id}/revoke`).expect(200);
      expect(revoked.body).toMatchObject({ id: rotated.id, status: 'revoked' });
      expect(await mcpStatus(rotated.token)).toBe(401);
      expect(await mcpStatus(derived.token)).toBe(401);
      const items = (await get(`/agent-service-keys/${key.id}/tokens`).expect(200)).body.items as { id: string; status: string; revokedAt: string }[];
      expect(items.map((x) => x.status)).toEqual(['revoked', 'revoked']);
      // One statement: both carry the same revocation time.
      expect(new Set(items.map((x) => x.revokedAt)).size).toBe(1);
      const audit = await t.dataSource.query(
        `SELECT metadata FROM audit_events WHERE action = 'project_token.revoked' AND target_id = $1`,
        [rotated.id],
      );
      expect(audit).toEqual([{ metadata: { serviceKeyId: key.id, rotatingOutTokensRevoked: [derived.id] } }]);
      // A new token for the pair can be derived afterwards.
      await post(`/agent-service-keys/${key.id}/tokens`, { projectId: rotated.projectId }).expect(201);
    });

    it('lets exactly one of parallel rotations of a token win; the others are 409', async () => {
      const { key, derived } = await keyWithToken();
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`, { overlapSeconds: 600 })),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
      const live = ((await get(`/agent-service-keys/${key.id}/tokens`).expect(200)).body.items as { status: string }[]).map((x) => x.status);
      expect(live).toEqual(['rotating_out', 'active']);
    });

    it('answers 404 for an unknown or malformed token and 404 for another key’s token', async () => {
      const { key } = await keyWithToken();
      const other = await keyWithToken();
      await post(`/agent-service-keys/${key.id}/tokens/00000000-0000-4000-8000-000000000000/rotate`).expect(404);
      await post(`/agent-service-keys/${key.id}/tokens/not-a-uuid/rotate`).expect(404);
      await post(`/agent-service-keys/${key.id}/tokens/${other.derived.id}/rotate`).expect(404);
    });

    it('records the rotation in the audit trail without a secret', async () => {
      const { key, derived } = await keyWithToken();
      const rotated = (await post(`/agent-service-keys/${key.id}/tokens/${derived.id}/rotate`, { overlapSeconds: 30 }).expect(201)).body;
      const events = (await get('/audit-events?action=project_token.rotated').expect(200)).body.items as Record<string, any>[];
      const event = events.find((e) => e.targetId === rotated.id)!;
      expect(event).toMatchObject({
        actorType: 'user',
        actorId: admin.user.id,
        metadata: { serviceKeyId: key.id, replacesTokenId: derived.id, overlapSeconds: 30 },
      });
      expect(JSON.stringify(events)).not.toContain(rotated.token);
    });
  });

  describe('rk_ keys', () => {
    async function apiKey() {
      return (await post('/api-keys', { name: 'reporting', permissions: ['projects:read'] }).expect(201)).body as { id: string; key: string };
    }

    it('keeps the old key working until the overlap ends, then refuses it; the list shows which rotates out', async () => {
      const old = await apiKey();
      const rotated = (await post(`/api-keys/${old.id}/rotate`, { overlapSeconds: SHORT_OVERLAP_SECONDS }).expect(201)).body;
      expect(rotated).toMatchObject({ name: 'reporting', permissions: ['projects:read'], replacesKeyId: old.id });
      expect(rotated.key).toMatch(/^rk_/);
      expect(await restStatus(old.key)).toBe(200);
      expect(await restStatus(rotated.key)).toBe(200);
      const items = (await get('/api-keys').expect(200)).body.items as Record<string, unknown>[];
      expect(items.find((k) => k.id === old.id)).toMatchObject({
        status: 'rotating_out',
        replacedBy: rotated.id,
        rotatingOutUntil: rotated.rotatingOutUntil,
      });
      expect(items.find((k) => k.id === rotated.id)).toMatchObject({ status: 'active', replacedBy: null, rotatingOutUntil: null });

      const until = Date.parse(rotated.rotatingOutUntil);
      const refused = await refusedAt(() => restStatus(old.key), until + 1000);
      expect(refused).toBeGreaterThanOrEqual(until - 20);
      expect(await restStatus(rotated.key)).toBe(200);
      const after = (await get('/api-keys').expect(200)).body.items as Record<string, unknown>[];
      expect(after.find((k) => k.id === old.id)).toMatchObject({ status: 'expired', expiresAt: rotated.rotatingOutUntil });
    });

    it('refuses a second rotation during the overlap and a rotation of the old key; revoking the new key ends both', async () => {
      const old = await apiKey();
      const rotated = (await post(`/api-keys/${old.id}/rotate`).expect(201)).body;
      expect(Math.abs((Date.parse(rotated.rotatingOutUntil) - Date.now()) / 1000 - DAY)).toBeLessThan(60);
      expect((await post(`/api-keys/${rotated.id}/rotate`, { overlapSeconds: 5 }).expect(409)).body.code).toBe('api_key_rotating');
      expect((await post(`/api-keys/${old.id}/rotate`).expect(409)).body.code).toBe('api_key_not_active');
      const tooLong = await post(`/api-keys/${old.id}/rotate`, { overlapSeconds: 7 * DAY + 1 }).expect(400);
      expect(JSON.stringify(tooLong.body.message)).toContain('overlapSeconds');

      await post(`/api-keys/${rotated.id}/revoke`).expect(200);
      expect(await restStatus(old.key)).toBe(401);
      expect(await restStatus(rotated.key)).toBe(401);
    });

    it('lets exactly one of parallel rotations of a key win', async () => {
      const old = await apiKey();
      const answers = await Promise.all(Array.from({ length: 6 }, () => post(`/api-keys/${old.id}/rotate`, { overlapSeconds: 600 })));
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      const items = (await get('/api-keys').expect(200)).body.items as { id: string; replacedBy: string | null; status: string }[];
      const winner = answers.find((a) => a.status === 201)!.body.id;
      expect(items.find((k) => k.id === old.id)).toMatchObject({ status: 'rotating_out', replacedBy: winner });
      expect(items.filter((k) => k.replacedBy === null && k.id !== old.id && k.id === winner)).toHaveLength(1);
    });
  });
});
