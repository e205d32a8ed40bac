import request from 'supertest';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';
import { AgentTokenService } from '@app/credentials';
import { generateToken, hashToken } from '@app/credential-store';
import { createOrganization, createProject } from './factories';
import { createApiKey, createOrganizationWithAdmin, createServiceKeyRow, createSessionUser } from './factories/machine';
import { invalidTokenChallenge, MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY } from './fixtures/mcp-401';
import { startTestApp, TestApp } from './helpers/test-app';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('service keys and derived project tokens (REST)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const keysUrl = (orgId: string) => `/api/organizations/${orgId}/agent-service-keys`;

  async function setup() {
    const { organization, admin } = await createOrganizationWithAdmin(t.app, t.dataSource);
    const projectA = await createProject(t.dataSource, organization.id);
    const projectB = await createProject(t.dataSource, organization.id);
    const auth = { Authorization: `Bearer ${admin.session}` };
    return { organization, admin, projectA, projectB, auth };
  }

  async function createKey(orgId: string, auth: Record<string, string>, body: object = { name: 'sync' }) {
    const res = await request(t.baseUrl).post(keysUrl(orgId)).set(auth).send(body).expect(201);
    return res.body as { id: string; name: string; permissions: string[] };
  }

  function derive(orgId: string, keyId: string, projectId: string, auth: Record<string, string>) {
    return request(t.baseUrl).post(`${keysUrl(orgId)}/${keyId}/tokens`).set(auth).send({ projectId });
  }

  async function auditEvents(orgId: string, action: string) {
    return t.dataSource.query(
      `SELECT project_id, actor_type, actor_id, target_type, target_id, metadata, ip, user_agent
         FROM audit_events WHERE organization_id = $1 AND action = $2 ORDER BY created_at`,
      [orgId, action],
    );
  }

  describe('creating a key', () => {
    it('answers 201 with the key; permissions default to every agent permission; audited', async () => {
      const { organization, admin, auth } = await setup();
      const res = await request(t.baseUrl)
        .post(keysUrl(organization.id))
        .set(auth)
        .set('User-Agent', 'machine-flow-test')
        .send({ name: '  nightly sync  ' })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'nightly sync',
        permissions: AGENT_PERMISSION_NAMES,
        status: 'active',
        createdAt: expect.stringMatching(ISO),
      });
      const events = await auditEvents(organization.id, 'service_key.created');
      expect(events).toEqual([
        {
          project_id: null,
          actor_type: 'user',
          actor_id: admin.id,
          target_type: 'service_key',
          target_id: res.body.id,
          metadata: { name: 'nightly sync', permissions: AGENT_PERMISSION_NAMES },
          ip: expect.any(String),
          user_agent: 'machine-flow-test',
        },
      ]);
    });

    it('keeps the chosen permissions, in catalogue order and without duplicates', async () => {
      const { organization, auth } = await setup();
      const key = await createKey(organization.id, auth, {
        name: 'reader',
        permissions: ['tasks:read', 'project:read', 'tasks:read'],
      });
      expect(key.permissions).toEqual(['project:read', 'tasks:read']);
    });

    it.each([
      ['an unknown permission', { name: 'x', permissions: ['tasks:read', 'tasks:admin'] }, /^permissions\[1\] is not an agent permission/],
      ['an API-key permission', { name: 'x', permissions: ['projects:write'] }, /^permissions\[0\] is not an agent permission/],
      ['no permissions', { name: 'x', permissions: [] }, /permissions should not be empty/],
      ['permissions not a list', { name: 'x', permissions: 'tasks:read' }, /permissions must be an array/],
      ['no name', { permissions: ['tasks:read'] }, /name should not be empty/],
      ['a blank name', { name: '   ' }, /name should not be empty/],
      ['a name over 200 characters', { name: 'x'.repeat(201) }, /name must be shorter than or equal to 200 characters/],
      ['an unknown field', { name: 'x', extra: 1 }, /property extra should not exist/],
    ])('refuses %s with a 400 naming it', async (_label, body, message) => {
      const { organization, auth } = await setup();
      const res = await request(t.baseUrl).post(keysUrl(organization.id)).set(auth).send(body).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(res.body.message).toEqual(expect.arrayContaining([expect.stringMatching(message)]));
      const [{ count }] = await t.dataSource.query('SELECT count(*)::int AS count FROM service_keys WHERE organization_id = $1', [
        organization.id,
      ]);
      expect(count).toBe(0);
    });
  });

  describe('deriving project tokens', () => {
    it('answers 201 with the dga_ secret once; the token opens exactly its project with the key’s permissions', async () => {
      const { organization, admin, projectA, auth } = await setup();
      const key = await createKey(organization.id, auth, { name: 'reader', permissions: ['project:read', 'tasks:read'] });
      const res = await derive(organization.id, key.id, projectA.id, auth).expect(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        token: expect.stringMatching(/^dga_[0-9A-Za-z]{49}$/),
        projectId: projectA.id,
        serviceKeyId: key.id,
        permissions: ['project:read', 'tasks:read'],
        createdAt: expect.stringMatching(ISO),
        expiresAt: null,
      });
      const principal = await t.app.get(AgentTokenService).resolve(res.body.token);
      expect(principal).toMatchObject({
        kind: 'agent',
        tokenId: res.body.id,
        source: 'service_key',
        organizationId: organization.id,
        projectId: projectA.id,
        permissions: ['project:read', 'tasks:read'],
        serviceKeyId: key.id,
        expiresAt: null,
      });
      const [row] = await t.dataSource.query('SELECT token_hash, expires_at FROM agent_tokens WHERE id = $1', [res.body.id]);
      expect(row).toEqual({ token_hash: hashToken(res.body.token), expires_at: null });

      const events = await auditEvents(organization.id, 'project_token.derived');
      expect(events).toEqual([
        expect.objectContaining({
          project_id: projectA.id,
          actor_type: 'user',
          actor_id: admin.id,
          target_type: 'agent_token',
          target_id: res.body.id,
          metadata: { serviceKeyId: key.id, permissions: ['project:read', 'tasks:read'] },
        }),
      ]);
      const everything = JSON.stringify(await t.dataSource.query('SELECT * FROM audit_events WHERE organization_id = $1', [organization.id]));
      expect(everything).not.toContain(res.body.token);
      expect(everything).not.toContain(hashToken(res.body.token));
    });

    it('never shows the secret again: key, key list and token list carry metadata only', async () => {
      const { organization, admin, projectA, projectB, auth } = await setup();
      const key = await createKey(organization.id, auth);
      const a = (await derive(organization.id, key.id, projectA.id, auth).expect(201)).body;
      const b = (await derive(organization.id, key.id, projectB.id, auth).expect(201)).body;
      const tokenMeta = (d: typeof a) => ({
        id: d.id,
        serviceKeyId: key.id,
        projectId: d.projectId,
        permissions: AGENT_PERMISSION_NAMES,
        secretHint: `dga_…${(d.token as string).slice(-4)}`,
        status: 'active',
        expiresAt: null,
        createdAt: d.createdAt,
        rotatingOutUntil: null,
        revokedAt: null,
        lastUsedAt: null,
      });
      const one = await request(t.baseUrl).get(`${keysUrl(organization.id)}/${key.id}`).set(auth).expect(200);
      expect(one.body).toEqual({
        id: key.id,
        name: 'sync',
        permissions: AGENT_PERMISSION_NAMES,
        status: 'active',
        createdAt: expect.stringMatching(ISO),
        revokedAt: null,
        createdBy: { type: 'user', id: admin.id, name: admin.name },
        tokens: [tokenMeta(a), tokenMeta(b)],
      });
      const list = await request(t.baseUrl).get(keysUrl(organization.id)).set(auth).expect(200);
      expect(list.body).toEqual({ items: [one.body], nextCursor: null });
      const tokens = await request(t.baseUrl).get(`${keysUrl(organization.id)}/${key.id}/tokens`).set(auth).expect(200);
      expect(tokens.body).toEqual({ items: [tokenMeta(a), tokenMeta(b)], nextCursor: null });
      for (const body of [one.text, list.text, tokens.text]) {
        for (const secret of [a.token, b.token]) {
          expect(body).not.toContain(secret);
          expect(body).not.toContain(hashToken(secret));
        }
      }
    });

    it('allows one active token per (key, project): a second is 409 until the first is revoked', async () => {
      const { organization, projectA, auth } = await setup();
      const key = await createKey(organization.id, auth);
      const first = (await derive(organization.id, key.id, projectA.id, auth).expect(201)).body;
      const second = await derive(organization.id, key.id, projectA.id, auth).expect(409);
      expect(second.body).toEqual({
        statusCode: 409,
        error: 'Conflict',
        code: 'project_token_exists',
        message: expect.stringContaining('already has an active token'),
      });
      await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/tokens/${first.id}/revoke`).set(auth).expect(200);
      const third = (await derive(organization.id, key.id, projectA.id, auth).expect(201)).body;
      expect(third.id).not.toBe(first.id);
      // another key of the same organisation may have its own token for the project
      const other = await createKey(organization.id, auth, { name: 'other' });
      await derive(organization.id, other.id, projectA.id, auth).expect(201);
    });

    it('gives exactly one 201 and nineteen 409 when 20 derive requests race', async () => {
      const { organization, projectA, auth } = await setup();
      const key = await createKey(organization.id, auth);
      const responses = await Promise.all(Array.from({ length: 20 }, () => derive(organization.id, key.id, projectA.id, auth)));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([201, ...Array(19).fill(409)]);
      for (const r of responses.filter((x) => x.status === 409)) expect(r.body.code).toBe('project_token_exists');
      const [{ count }] = await t.dataSource.query(
        'SELECT count(*)::int AS count FROM agent_tokens WHERE service_key_id = $1',
        [key.id],
      );
      expect(count).toBe(1);
      expect(await auditEvents(organization.id, 'project_token.derived')).toHaveLength(1);
    });

    it('answers 404 for a project of another organisation, a deleted one or one that does not exist', async () => {
      const { organization, auth } = await setup();
      const key = await createKey(organization.id, auth);
      const foreignOrg = await createOrganization(t.dataSource);
      const foreign = await createProject(t.dataSource, foreignOrg.id);
      const deleted = await createProject(t.dataSource, organization.id);
      await t.dataSource.query('UPDATE projects SET deleted_at = now() WHERE id = $1', [deleted.id]);
      for (const projectId of [foreign.id, deleted.id, '00000000-0000-4000-8000-000000000000']) {
        const res = await derive(organization.id, key.id, projectId, auth).expect(404);
        expect(res.body).toEqual({ statusCode: 404, message: 'Project not found', error: 'Not Found', code: 'not_found' });
      }
      const [{ count }] = await t.dataSource.query('SELECT count(*)::int AS count FROM agent_tokens WHERE service_key_id = $1', [key.id]);
      expect(count).toBe(0);
    });

    it('answers 400 naming projectId when it is missing or not a UUID', async () => {
      const { organization, auth } = await setup();
      const key = await createKey(organization.id, auth);
      for (const body of [{}, { projectId: 'nope' }, { projectId: 42 }]) {
        const res = await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/tokens`).set(auth).send(body).expect(400);
        expect(res.body.message).toEqual(['projectId must be a UUID']);
      }
    });

    it('answers 404 for an unknown key, a malformed key id and another organisation’s key', async () => {
      const { organization, projectA, auth } = await setup();
      const foreignOrg = await createOrganization(t.dataSource);
      const foreignKey = await createServiceKeyRow(t.dataSource, foreignOrg.id);
      for (const keyId of [foreignKey.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await derive(organization.id, keyId, projectA.id, auth).expect(404);
        expect(res.body).toEqual({ statusCode: 404, message: 'Service key not found', error: 'Not Found', code: 'not_found' });
        await request(t.baseUrl).get(`${keysUrl(organization.id)}/${keyId}`).set(auth).expect(404);
        await request(t.baseUrl).get(`${keysUrl(organization.id)}/${keyId}/tokens`).set(auth).expect(404);
        await request(t.baseUrl).post(`${keysUrl(organization.id)}/${keyId}/revoke`).set(auth).expect(404);
      }
      const [{ revoked }] = await t.dataSource.query('SELECT revoked_at AS revoked FROM service_keys WHERE id = $1', [foreignKey.id]);
      expect(revoked).toBeNull();
    });

    it('refuses to derive from a revoked key with 409', async () => {
      const { organization, projectA, auth } = await setup();
      const key = await createKey(organization.id, auth);
      await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/revoke`).set(auth).expect(200);
      const res = await derive(organization.id, key.id, projectA.id, auth).expect(409);
      expect(res.body.code).toBe('service_key_revoked');
    });
  });

  describe('listing, page by page', () => {
    it('pages the keys newest first with limit and cursor, without gaps or duplicates', async () => {
      const { organization, auth } = await setup();
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await createKey(organization.id, auth, { name: `key ${i}` })).id);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = cursor ? { limit: 2, cursor } : { limit: 2 };
        const res = await request(t.baseUrl).get(keysUrl(organization.id)).query(query).set(auth).expect(200);
        expect(res.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.items.map((k: { id: string }) => k.id));
        cursor = res.body.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect([...seen].sort()).toEqual([...made].sort());
      // The pages join up into the whole list, in its order (newest first; the same instant by id).
      const all = await request(t.baseUrl).get(keysUrl(organization.id)).set(auth).expect(200);
      expect(all.body.items.map((k: { id: string }) => k.id)).toEqual(seen);
      expect(all.body.nextCursor).toBeNull();
      const times = all.body.items.map((k: { createdAt: string }) => k.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('pages a key’s derived tokens oldest first', async () => {
      const { organization, auth } = await setup();
      const key = await createKey(organization.id, auth);
      const derived: string[] = [];
      for (let i = 0; i < 3; i++) {
        const project = await createProject(t.dataSource, organization.id);
        derived.push((await derive(organization.id, key.id, project.id, auth).expect(201)).body.id);
      }
      const url = `${keysUrl(organization.id)}/${key.id}/tokens`;
      const all = (await request(t.baseUrl).get(url).set(auth).expect(200)).body.items.map((x: { id: string }) => x.id) as string[];
      expect([...all].sort()).toEqual([...derived].sort());
      const first = await request(t.baseUrl).get(url).query({ limit: 2 }).set(auth).expect(200);
      expect(first.body.items.map((x: { id: string }) => x.id)).toEqual(all.slice(0, 2));
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await request(t.baseUrl).get(url).query({ limit: 2, cursor: first.body.nextCursor }).set(auth).expect(200);
      expect(second.body).toEqual({ items: [expect.objectContaining({ id: all[2] })], nextCursor: null });
    });

    it('refuses a bad limit or a cursor it did not issue with 400, naming it', async () => {
      const { organization, auth } = await setup();
      const key = await createKey(organization.id, auth);
      for (const url of [keysUrl(organization.id), `${keysUrl(organization.id)}/${key.id}/tokens`]) {
        for (const limit of ['0', '101', 'x', '1.5']) {
          const res = await request(t.baseUrl).get(url).query({ limit }).set(auth).expect(400);
          expect(res.body.message.join(' ')).toContain('limit');
        }
        for (const cursor of ['nope!', Buffer.from('v1.not-a-uuid').toString('base64url'), 'a'.repeat(201)]) {
          const res = await request(t.baseUrl).get(url).query({ cursor }).set(auth).expect(400);
          expect(JSON.stringify(res.body.message)).toContain('cursor');
        }
      }
    });

    it('names an rk_ key as the creator of the keys it made', async () => {
      const { organization } = await setup();
      const rk = await createApiKey(t.dataSource, organization.id, ['service_keys:write', 'service_keys:read']);
      const made = await createKey(organization.id, { Authorization: `Bearer ${rk.key}` }, { name: 'by a key' });
      const res = await request(t.baseUrl).get(`${keysUrl(organization.id)}/${made.id}`).set('Authorization', `Bearer ${rk.key}`).expect(200);
      expect(res.body.createdBy).toEqual({ type: 'api_key', id: rk.id, name: 'test key' });
    });
  });

  describe('revoking', () => {
    it('revokes the key and every derived token in one go, idempotently, and audits it', async () => {
      const { organization, admin, projectA, projectB, auth } = await setup();
      const key = await createKey(organization.id, auth);
      const a = (await derive(organization.id, key.id, projectA.id, auth).expect(201)).body;
      const b = (await derive(organization.id, key.id, projectB.id, auth).expect(201)).body;
      await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/tokens/${b.id}/revoke`).set(auth).expect(200);
      // a token of another key stays alive
      const otherKey = await createKey(organization.id, auth, { name: 'other' });
      const survivor = (await derive(organization.id, otherKey.id, projectA.id, auth).expect(201)).body;

      const first = await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/revoke`).set(auth).expect(200);
      expect(first.body).toEqual({ id: key.id, status: 'revoked', revokedAt: expect.stringMatching(ISO), revokedTokens: 1 });
      const second = await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/revoke`).set(auth).expect(200);
      expect(second.body).toEqual({ ...first.body, revokedTokens: 0 });

      const tokens = t.app.get(AgentTokenService);
      expect(await tokens.resolve(a.token)).toBeNull();
      expect(await tokens.resolve(b.token)).toBeNull();
      expect(await tokens.resolve(survivor.token)).not.toBeNull();

      const detail = await request(t.baseUrl).get(`${keysUrl(organization.id)}/${key.id}`).set(auth).expect(200);
      expect(detail.body.status).toBe('revoked');
      expect(detail.body.revokedAt).toBe(first.body.revokedAt);
      expect(detail.body.tokens.map((x: { status: string }) => x.status)).toEqual(['revoked', 'revoked']);
      expect(detail.body.tokens[0].revokedAt).toBe(first.body.revokedAt);

      expect(await auditEvents(organization.id, 'service_key.revoked')).toEqual([
        expect.objectContaining({
          actor_type: 'user',
          actor_id: admin.id,
          target_type: 'service_key',
          target_id: key.id,
          metadata: { revokedTokens: 1 },
        }),
      ]);
      expect(await auditEvents(organization.id, 'project_token.revoked')).toEqual([
        expect.objectContaining({ project_id: projectB.id, target_type: 'agent_token', target_id: b.id, metadata: { serviceKeyId: key.id } }),
      ]);
    });

    it('revokes a single derived token idempotently; 404 for a token of another key', async () => {
      const { organization, projectA, auth } = await setup();
      const key = await createKey(organization.id, auth);
      const otherKey = await createKey(organization.id, auth, { name: 'other' });
      const a = (await derive(organization.id, key.id, projectA.id, auth).expect(201)).body;
      await request(t.baseUrl).post(`${keysUrl(organization.id)}/${otherKey.id}/tokens/${a.id}/revoke`).set(auth).expect(404);
      await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/tokens/not-a-uuid/revoke`).set(auth).expect(404);
      const first = await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/tokens/${a.id}/revoke`).set(auth).expect(200);
      expect(first.body).toEqual({ id: a.id, status: 'revoked', revokedAt: expect.stringMatching(ISO) });
      const again = await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/tokens/${a.id}/revoke`).set(auth).expect(200);
      expect(again.body).toEqual(first.body);
      expect(await t.app.get(AgentTokenService).resolve(a.token)).toBeNull();
      expect(await auditEvents(organization.id, 'project_token.revoked')).toHaveLength(1);
    });

    it('revokes 1,000 derived tokens with the key; every one is refused afterwards', async () => {
      const { organization, auth } = await setup();
      const key = await createKey(organization.id, auth);
      const secrets = await seedDerivedTokens(organization.id, key.id, 1000);
      const tokens = t.app.get(AgentTokenService);
      const sample = [0, 1, 499, 998, 999].map((i) => secrets[i]);
      for (const s of sample) expect(await tokens.resolve(s)).not.toBeNull();
      const overHttp = [secrets[0], secrets[500], secrets[999], ...pick(secrets, 3)];
      for (const s of overHttp) expect((await mcpToolsList(s)).status).toBe(200);

      const res = await request(t.baseUrl).post(`${keysUrl(organization.id)}/${key.id}/revoke`).set(auth).expect(200);
      expect(res.body.revokedTokens).toBe(1000);
      const [row] = await t.dataSource.query(
        `SELECT count(*)::int AS total,
                count(*) FILTER (WHERE t.revoked_at IS NULL)::int AS live,
                count(*) FILTER (WHERE t.revoked_at = k.revoked_at)::int AS with_key
           FROM agent_tokens t JOIN service_keys k ON k.id = t.service_key_id
          WHERE t.service_key_id = $1`,
        [key.id],
      );
      expect(row).toEqual({ total: 1000, live: 0, with_key: 1000 });
      for (const s of [...sample, ...pick(secrets, 45)]) expect(await tokens.resolve(s)).toBeNull();
      for (const s of overHttp) {
        const refused = await mcpToolsList(s);
        expect(refused.status).toBe(401);
        expect(refused.headers['www-authenticate']).toBe(invalidTokenChallenge(t.baseUrl));
        expect(refused.body).toEqual(MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY);
      }
    });
  });

  function mcpToolsList(token: string) {
    return request(t.baseUrl)
      .post('/api/mcp')
      .set('Authorization', `Bearer ${token}`)
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', '2025-06-18')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  }

  /**
   * 1,000 projects and one derived token each, in two statements: hashes computed here, rows
   * made by INSERT … SELECT over generate_series.
   */
  async function seedDerivedTokens(organizationId: string, keyId: string, n: number): Promise<string[]> {
    const secrets = Array.from({ length: n }, () => generateToken('dga_'));
    await t.dataSource.query(
      `INSERT INTO projects (organization_id, name) SELECT $1, 'bulk ' || i FROM generate_series(1, $2) AS i`,
      [organizationId, n],
    );
    await t.dataSource.query(
      `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, service_key_id)
       SELECT ($3::text[])[p.n], 'service_key', $1, p.id, $4, $2
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM projects
                WHERE organization_id = $1 AND name LIKE 'bulk %') AS p
         JOIN generate_series(1, $5) AS i ON i = p.n`,
      [organizationId, keyId, secrets.map(hashToken), AGENT_PERMISSION_NAMES, n],
    );
    return secrets;
  }

  describe('access', () => {
    type Caller =
      | 'admin session'
      | 'member session'
      | 'another org’s admin session'
      | 'rk_ with permission'
      | 'rk_ without permission'
      | 'rk_ of another org'
      | 'dga_'
      | 'none'
      | 'unrecognised';
    const callers: Caller[] = [
      'admin session',
      'member session',
      'another org’s admin session',
      'rk_ with permission',
      'rk_ without permission',
      'rk_ of another org',
      'dga_',
      'none',
      'unrecognised',
    ];
    const expected: Record<Caller, number | 'ok'> = {
      'admin session': 'ok',
      'member session': 403,
      'another org’s admin session': 404,
      'rk_ with permission': 'ok',
      'rk_ without permission': 403,
      'rk_ of another org': 404,
      dga_: 403,
      none: 401,
      unrecognised: 401,
    };

    const routes: { name: string; permission: 'service_keys:read' | 'service_keys:write'; ok: number; call: (ctx: RouteCtx) => request.Test }[] = [
      { name: 'POST keys', permission: 'service_keys:write', ok: 201, call: (c) => request(t.baseUrl).post(keysUrl(c.orgId)).send({ name: 'k' }) },
      { name: 'GET keys', permission: 'service_keys:read', ok: 200, call: (c) => request(t.baseUrl).get(keysUrl(c.orgId)) },
      { name: 'GET key', permission: 'service_keys:read', ok: 200, call: (c) => request(t.baseUrl).get(`${keysUrl(c.orgId)}/${c.keyId}`) },
      { name: 'POST revoke key', permission: 'service_keys:write', ok: 200, call: (c) => request(t.baseUrl).post(`${keysUrl(c.orgId)}/${c.keyId}/revoke`) },
      {
        name: 'POST derive',
        permission: 'service_keys:write',
        ok: 201,
        call: (c) => request(t.baseUrl).post(`${keysUrl(c.orgId)}/${c.keyId}/tokens`).send({ projectId: c.projectId }),
      },
      { name: 'GET tokens', permission: 'service_keys:read', ok: 200, call: (c) => request(t.baseUrl).get(`${keysUrl(c.orgId)}/${c.keyId}/tokens`) },
      {
        name: 'POST revoke token',
        permission: 'service_keys:write',
        ok: 200,
        call: (c) => request(t.baseUrl).post(`${keysUrl(c.orgId)}/${c.keyId}/tokens/${c.tokenId}/revoke`),
      },
    ];
    interface RouteCtx {
      orgId: string;
      keyId: string;
      projectId: string;
      tokenId: string;
    }

    it.each(routes.map((r) => [r.name, r] as const))('%s: admin or the rk_ permission; members 403; others refused', async (_n, route) => {
      const seen: Record<string, number> = {};
      for (const caller of callers) {
        const { organization, auth, projectA, projectB } = await setup();
        const key = await createKey(organization.id, auth);
        const token = (await derive(organization.id, key.id, projectA.id, auth).expect(201)).body;
        const ctx: RouteCtx = { orgId: organization.id, keyId: key.id, projectId: projectB.id, tokenId: token.id };
        const credential = await credentialFor(caller, organization.id, route.permission, token.token);
        const req = route.call(ctx);
        if (credential) req.set('Authorization', `Bearer ${credential}`);
        const res = await req.set('Origin', 'https://elsewhere.example');
        seen[caller] = res.status;
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
        if (res.status >= 400) expect(res.body).toMatchObject({ statusCode: res.status });
      }
      const want = Object.fromEntries(callers.map((c) => [c, expected[c] === 'ok' ? route.ok : expected[c]]));
      expect(seen).toEqual(want);
    });

    async function credentialFor(caller: Caller, orgId: string, permission: 'service_keys:read' | 'service_keys:write', dga: string) {
      switch (caller) {
        case 'admin session':
          return (await createSessionUser(t.app, t.dataSource, orgId, 'admin')).session;
        case 'member session':
          return (await createSessionUser(t.app, t.dataSource, orgId, 'member')).session;
        case 'another org’s admin session':
          return (await createOrganizationWithAdmin(t.app, t.dataSource)).admin.session;
        case 'rk_ with permission':
          return (await createApiKey(t.dataSource, orgId, [permission])).key;
        case 'rk_ without permission': {
          const other = permission === 'service_keys:read' ? 'service_keys:write' : 'service_keys:read';
          return (await createApiKey(t.dataSource, orgId, ['projects:read', 'projects:write', 'members:read', 'audit:read', other])).key;
        }
        case 'rk_ of another org': {
          const foreign = await createOrganization(t.dataSource);
          return (await createApiKey(t.dataSource, foreign.id, ['service_keys:read', 'service_keys:write'])).key;
        }
        case 'dga_':
          return dga;
        case 'none':
          return undefined;
        case 'unrecognised':
          return 'not-a-credential';
      }
    }

    it('audits an rk_ key as the actor', async () => {
      const { organization } = await setup();
      const rk = await createApiKey(t.dataSource, organization.id, ['service_keys:write']);
      const res = await request(t.baseUrl)
        .post(keysUrl(organization.id))
        .set('Authorization', `Bearer ${rk.key}`)
        .send({ name: 'from a key' })
        .expect(201);
      expect(await auditEvents(organization.id, 'service_key.created')).toEqual([
        expect.objectContaining({ actor_type: 'api_key', actor_id: rk.id, target_id: res.body.id }),
      ]);
    });
  });
});

function pick<T>(items: T[], n: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}
