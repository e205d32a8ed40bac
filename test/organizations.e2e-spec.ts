import request from 'supertest';
import { AgentTokenService } from '@app/credentials';
import { addMember, createAgentToken, createProject, createUser } from './factories';
import { createApiKey, createTeam, sessionFor, signupOverHttp } from './factories/rest';
import { REST_ERRORS } from './fixtures/rest-errors';
import { startTestApp, TestApp } from './helpers/test-app';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('organisations, projects and members (SPEC §6)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const api = () => request(t.baseUrl);
  const events = (organizationId: string, action: string) =>
    t.dataSource.query(
      `SELECT actor_type, actor_id, action, project_id, target_type, target_id, metadata, ip, user_agent
         FROM audit_events WHERE organization_id = $1 AND action = $2 ORDER BY created_at`,
      [organizationId, action],
    );

  describe('organisations', () => {
    it('creates an organisation whose admin is its creator, lists and reads it', async () => {
      const a = await signupOverHttp(t);
      const created = await api().post('/api/organizations').auth(a.accessToken, { type: 'bearer' }).send({ name: '  Second Org ' }).expect(201);
      expect(created.body).toEqual({ id: expect.stringMatching(UUID_RE), name: 'Second Org', createdAt: expect.stringMatching(ISO_RE), role: 'admin' });
      const list = await api().get('/api/organizations').auth(a.accessToken, { type: 'bearer' }).expect(200);
      expect(list.body.items.map((o: { id: string; role: string }) => [o.id, o.role])).toEqual([
        [a.organization.id, 'admin'],
        [created.body.id, 'admin'],
      ]);
      const one = await api().get(`/api/organizations/${created.body.id}`).auth(a.accessToken, { type: 'bearer' }).expect(200);
      expect(one.body).toEqual(created.body);
      expect(await events(created.body.id, 'organization.created')).toEqual([
        expect.objectContaining({ actor_type: 'user', actor_id: a.user.id, target_id: created.body.id }),
      ]);
    });

    it('lets a member read the organisation with their role; others get 404', async () => {
      const team = await createTeam(t);
      const res = await api().get(`/api/organizations/${team.organization.id}`).auth(team.member.jwt, { type: 'bearer' }).expect(200);
      expect(res.body.role).toBe('member');
      const outsider = await api().get(`/api/organizations/${team.organization.id}`).auth(team.outsider.jwt, { type: 'bearer' }).expect(404);
      expect(outsider.body).toEqual(REST_ERRORS.organizationNotFound);
      await api().get('/api/organizations/not-a-uuid').auth(team.admin.jwt, { type: 'bearer' }).expect(404);
      await api().get('/api/organizations/00000000-0000-4000-8000-000000000000').auth(team.admin.jwt, { type: 'bearer' }).expect(404);
    });

    it('renames a project (admin or rk_ with projects:write) → 200 with the new name, audited with the former name', async () => {
      const team = await createTeam(t);
      const project = await createProject(t.dataSource, team.organization.id, 'Old name');
      const token = await createAgentToken(t.dataSource, project);
      const path = `/api/organizations/${team.organization.id}/projects/${project.id}`;
      const res = await api().patch(path).auth(team.admin.jwt, { type: 'bearer' }).set('User-Agent', 'tour/1.0').send({ name: '  New name ' }).expect(200);
      expect(res.body).toEqual({ id: project.id, name: 'New name', organizationId: team.organization.id, createdAt: expect.stringMatching(ISO_RE) });
      await api().get(path).auth(team.member.jwt, { type: 'bearer' }).expect(200, res.body);
      expect(await t.app.get(AgentTokenService).resolve(token.token)).not.toBeNull();
      const writer = await createApiKey(t.dataSource, team.organization.id, ['projects:write']);
      await api().patch(path).auth(writer.key, { type: 'bearer' }).send({ name: 'Third name' }).expect(200);
      // The same name again changes nothing and records nothing.
      await api().patch(path).auth(team.admin.jwt, { type: 'bearer' }).send({ name: 'Third name' }).expect(200);
      expect(await events(team.organization.id, 'project.renamed')).toEqual([
        {
          actor_type: 'user',
          actor_id: team.admin.id,
          action: 'project.renamed',
          project_id: project.id,
          target_type: 'project',
          target_id: project.id,
          metadata: { previousName: 'Old name', name: 'New name' },
          ip: expect.any(String),
          user_agent: 'tour/1.0',
        },
        expect.objectContaining({ actor_type: 'api_key', actor_id: writer.id, metadata: { previousName: 'New name', name: 'Third name' } }),
      ]);
    });

    it("renames neither another organisation's project nor a deleted one (404), and refuses a bad name naming name (400)", async () => {
      const team = await createTeam(t);
      const foreign = await createProject(t.dataSource, team.other.id, 'Theirs');
      const base = `/api/organizations/${team.organization.id}/projects`;
      await api().patch(`${base}/${foreign.id}`).auth(team.admin.jwt, { type: 'bearer' }).send({ name: 'Mine now' }).expect(404);
      await api().patch(`${base}/nope`).auth(team.admin.jwt, { type: 'bearer' }).send({ name: 'Mine now' }).expect(404);
      const [row] = await t.dataSource.query('SELECT name FROM projects WHERE id = $1', [foreign.id]);
      expect(row.name).toBe('Theirs');
      const gone = await createProject(t.dataSource, team.organization.id);
      await api().delete(`${base}/${gone.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      await api().patch(`${base}/${gone.id}`).auth(team.admin.jwt, { type: 'bearer' }).send({ name: 'Back' }).expect(404);
      const mine = await createProject(t.dataSource, team.organization.id);
      for (const [body, message] of [
        [{}, 'name should not be empty'],
        [{ name: '  ' }, 'name should not be empty'],
        [{ name: 'x'.repeat(201) }, 'name must be shorter than or equal to 200 characters'],
      ] as const) {
        const res = await api().patch(`${base}/${mine.id}`).auth(team.admin.jwt, { type: 'bearer' }).send(body).expect(400);
        expect(res.body).toEqual({ statusCode: 400, message: expect.arrayContaining([message]), error: 'Bad Request' });
      }
    });

    it('pages the list by keyset: limit, cursor, nextCursor; a forged cursor or a bad limit is 400', async () => {
      const team = await createTeam(t);
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await createProject(t.dataSource, team.organization.id, `P${i}`));
      const path = `/api/organizations/${team.organization.id}/projects`;
      const seen: string[] = [];
      let cursor: string | undefined;
      const sizes: number[] = [];
      do {
        const res = await api().get(path).query({ limit: 2, ...(cursor ? { cursor } : {}) }).auth(team.member.jwt, { type: 'bearer' }).expect(200);
        sizes.push(res.body.items.length);
        seen.push(...res.body.items.map((p: { id: string }) => p.id));
        cursor = res.body.nextCursor ?? undefined;
        // A project created while paging lands at the end, never shifting the pages.
        if (sizes.length === 1) made.push(await createProject(t.dataSource, team.organization.id, 'Late'));
      } while (cursor);
      expect(sizes).toEqual([2, 2, 2]);
      const all = await api().get(path).auth(team.member.jwt, { type: 'bearer' }).expect(200);
      expect(all.body.nextCursor).toBeNull();
      expect(seen).toEqual(all.body.items.map((p: { id: string }) => p.id));
      expect(new Set(seen)).toEqual(new Set(made.map((p) => p.id)));
      for (const bad of ['garbage!', Buffer.from('123.not-a-uuid').toString('base64url')]) {
        const res = await api().get(path).query({ cursor: bad }).auth(team.admin.jwt, { type: 'bearer' }).expect(400);
        expect(res.body).toEqual({ statusCode: 400, message: 'cursor is not a cursor this list returned', error: 'Bad Request', code: 'invalid_cursor' });
      }
      for (const limit of ['0', '101', 'x']) await api().get(path).query({ limit }).auth(team.admin.jwt, { type: 'bearer' }).expect(400);
    });

    it('answers 400 naming name', async () => {
      const team = await createTeam(t);
      for (const body of [{}, { name: '' }, { name: 'x'.repeat(201) }, { name: 'ok', extra: 1 }]) {
        const res = await api().post('/api/organizations').auth(team.admin.jwt, { type: 'bearer' }).send(body).expect(400);
        expect((res.body.message as string[]).join(' ')).toMatch(/name|extra/);
      }
    });
  });

  describe('projects', () => {
    it('creates a project (admin) → 201 {id, name, organizationId, createdAt}, with an audit event', async () => {
      const team = await createTeam(t);
      const res = await api()
        .post(`/api/organizations/${team.organization.id}/projects`)
        .auth(team.admin.jwt, { type: 'bearer' })
        .set('User-Agent', 'tour/1.0')
        .send({ name: 'Website' })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID_RE),
        name: 'Website',
        organizationId: team.organization.id,
        createdAt: expect.stringMatching(ISO_RE),
      });
      expect(await events(team.organization.id, 'project.created')).toEqual([
        {
          actor_type: 'user',
          actor_id: team.admin.id,
          action: 'project.created',
          project_id: res.body.id,
          target_type: 'project',
          target_id: res.body.id,
          metadata: { name: 'Website' },
          ip: expect.any(String),
          user_agent: 'tour/1.0',
        },
      ]);
    });

    it('lets an rk_ key with projects:write create, and one with projects:read list and read', async () => {
      const team = await createTeam(t);
      const writer = await createApiKey(t.dataSource, team.organization.id, ['projects:write']);
      const reader = await createApiKey(t.dataSource, team.organization.id, ['projects:read']);
      const created = await api().post(`/api/organizations/${team.organization.id}/projects`).auth(writer.key, { type: 'bearer' }).send({ name: 'Via key' }).expect(201);
      const [event] = await events(team.organization.id, 'project.created');
      expect(event).toMatchObject({ actor_type: 'api_key', actor_id: writer.id });
      const list = await api().get(`/api/organizations/${team.organization.id}/projects`).auth(reader.key, { type: 'bearer' }).expect(200);
      expect(list.body).toEqual({ items: [created.body], nextCursor: null });
      await api().get(`/api/organizations/${team.organization.id}/projects/${created.body.id}`).auth(reader.key, { type: 'bearer' }).expect(200, created.body);
    });

    it("never shows another organisation's project, even through a path of one's own organisation", async () => {
      const team = await createTeam(t);
      const foreign = await createProject(t.dataSource, team.other.id);
      await api().get(`/api/organizations/${team.organization.id}/projects/${foreign.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
      await api().delete(`/api/organizations/${team.organization.id}/projects/${foreign.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
      await api().get(`/api/organizations/${team.organization.id}/projects/nope`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
      const [row] = await t.dataSource.query('SELECT deleted_at FROM projects WHERE id = $1', [foreign.id]);
      expect(row.deleted_at).toBeNull();
    });

    it('deleting a project revokes every agent token bound to it in the same transaction, and hides it', async () => {
      const team = await createTeam(t);
      const project = await createProject(t.dataSource, team.organization.id);
      const sibling = await createProject(t.dataSource, team.organization.id);
      const a = await createAgentToken(t.dataSource, project);
      const b = await createAgentToken(t.dataSource, project, { expiresAt: null });
      const alreadyRevoked = await createAgentToken(t.dataSource, project, { revokedAt: new Date('2026-01-01T00:00:00Z') });
      const other = await createAgentToken(t.dataSource, sibling);
      const resolver = t.app.get(AgentTokenService);
      expect(await resolver.resolve(a.token)).not.toBeNull();

      const res = await api().delete(`/api/organizations/${team.organization.id}/projects/${project.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(res.body).toEqual({ id: project.id, deletedAt: expect.stringMatching(ISO_RE), revokedTokens: 2 });

      expect(await resolver.resolve(a.token)).toBeNull();
      expect(await resolver.resolve(b.token)).toBeNull();
      expect(await resolver.resolve(other.token)).not.toBeNull();
      const [old] = await t.dataSource.query('SELECT revoked_at FROM agent_tokens WHERE id = $1', [alreadyRevoked.id]);
      expect(new Date(old.revoked_at).toISOString()).toBe('2026-01-01T00:00:00.000Z');

      await api().get(`/api/organizations/${team.organization.id}/projects/${project.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
      await api().delete(`/api/organizations/${team.organization.id}/projects/${project.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
      const list = await api().get(`/api/organizations/${team.organization.id}/projects`).auth(team.member.jwt, { type: 'bearer' }).expect(200);
      expect(list.body.items.map((p: { id: string }) => p.id)).toEqual([sibling.id]);
      expect(await events(team.organization.id, 'project.deleted')).toEqual([
        expect.objectContaining({ actor_id: team.admin.id, project_id: project.id, target_id: project.id, metadata: { name: project.name, revokedTokens: 2 } }),
      ]);
    });

    it('deletes a project once when two deletions race', async () => {
      const team = await createTeam(t);
      const project = await createProject(t.dataSource, team.organization.id);
      await createAgentToken(t.dataSource, project);
      const results = await Promise.all(
        [0, 1, 2].map(() => api().delete(`/api/organizations/${team.organization.id}/projects/${project.id}`).auth(team.admin.jwt, { type: 'bearer' })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 404, 404]);
      expect(await events(team.organization.id, 'project.deleted')).toHaveLength(1);
    });

    it('answers 400 naming name', async () => {
      const team = await createTeam(t);
      const path = `/api/organizations/${team.organization.id}/projects`;
      const cases: [object, string][] = [
        [{}, 'name should not be empty'],
        [{ name: '   ' }, 'name should not be empty'],
        [{ name: 42 }, 'name must be a string'],
        [{ name: 'x'.repeat(201) }, 'name must be shorter than or equal to 200 characters'],
        [{ name: 'ok', organizationId: team.other.id }, 'property organizationId should not exist'],
      ];
      for (const [body, message] of cases) {
        const res = await api().post(path).auth(team.admin.jwt, { type: 'bearer' }).send(body).expect(400);
        expect(res.body).toEqual({ statusCode: 400, message: expect.arrayContaining([message]), error: 'Bad Request' });
      }
    });
  });

  describe('members', () => {
    it('lists members with their roles (admin)', async () => {
      const team = await createTeam(t);
      const res = await api().get(`/api/organizations/${team.organization.id}/members`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      const admin = { userId: team.admin.id, email: team.admin.email, name: 'Ada Admin', role: 'admin', joinedAt: expect.stringMatching(ISO_RE) };
      const member = { userId: team.member.id, email: team.member.email, name: 'Max Member', role: 'member', joinedAt: expect.stringMatching(ISO_RE) };
      // The documented order: by join time, members who joined in the same instant by user id.
      const joined = (id: string) => (res.body.items as { userId: string; joinedAt: string }[]).find((i) => i.userId === id)!.joinedAt;
      const adminFirst =
        joined(team.admin.id) < joined(team.member.id) || (joined(team.admin.id) === joined(team.member.id) && team.admin.id < team.member.id);
      expect(res.body).toEqual({ items: adminFirst ? [admin, member] : [member, admin], nextCursor: null });
    });

    it('invites by email with a role: the same answer for a known and an unknown email, nobody added until the link is accepted', async () => {
      const team = await createTeam(t);
      const newcomer = await createUser(t.dataSource, { name: 'Nina New' });
      const path = `/api/organizations/${team.organization.id}/members`;
      const known = await api().post(path).auth(team.admin.jwt, { type: 'bearer' }).send({ email: newcomer.email.toUpperCase(), role: 'member' }).expect(201);
      const unknown = await api().post(path).auth(team.admin.jwt, { type: 'bearer' }).send({ email: 'nobody-here@example.test', role: 'member' }).expect(201);
      const shape = (email: string) => ({
        id: expect.stringMatching(UUID_RE),
        organizationId: team.organization.id,
        email,
        role: 'member',
        status: 'pending',
        invitedBy: team.admin.id,
        createdAt: expect.stringMatching(ISO_RE),
        expiresAt: expect.stringMatching(ISO_RE),
        acceptedAt: null,
        link: expect.stringMatching(/^http:\/\/[^/]+\/signup\?invitation=dgi_[0-9A-Za-z]{49}$/),
        token: expect.stringMatching(/^dgi_[0-9A-Za-z]{49}$/),
      });
      expect(known.body).toEqual(shape(newcomer.email));
      expect(unknown.body).toEqual(shape('nobody-here@example.test'));
      expect(Object.keys(known.body).sort()).toEqual(Object.keys(unknown.body).sort());
      expect(known.headers['cache-control']).toBe('no-store');
      expect(known.body.link.endsWith(known.body.token)).toBe(true);
      // Nothing is granted by the invitation alone, not even to the account with that email.
      const members = await api().get(path).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(members.body.items.map((m: { userId: string }) => m.userId)).not.toContain(newcomer.id);
      const jwt = await sessionFor(t, newcomer.id);
      await api().get(`/api/organizations/${team.organization.id}/projects`).auth(jwt, { type: 'bearer' }).expect(404);
      expect(await events(team.organization.id, 'member.added')).toEqual([]);
      expect(await events(team.organization.id, 'invitation.created')).toEqual([
        expect.objectContaining({ actor_id: team.admin.id, target_type: 'invitation', target_id: known.body.id, metadata: { email: newcomer.email, role: 'member' } }),
        expect.objectContaining({ actor_id: team.admin.id, target_type: 'invitation', target_id: unknown.body.id, metadata: { email: 'nobody-here@example.test', role: 'member' } }),
      ]);
      // The secret is stored only as its digest.
      const [row] = await t.dataSource.query(`SELECT token_hash FROM invitations WHERE id = $1`, [known.body.id]);
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(await t.dataSource.query(`SELECT * FROM invitations`))).not.toContain(known.body.token);
      // With the link, the person joins with the invited role.
      const accepted = await api().post('/api/invitations/accept').auth(jwt, { type: 'bearer' }).send({ token: known.body.token }).expect(200);
      // Accepting ends the session that accepted and answers a new one, which opens the organisation (SPEC §10).
      expect(accepted.body).toEqual({
        organizationId: team.organization.id,
        organizationName: team.organization.name,
        role: 'member',
        accessToken: expect.any(String),
        tokenType: 'Bearer',
        expiresIn: expect.any(Number),
      });
      await api().get('/api/me').auth(jwt, { type: 'bearer' }).expect(401);
      await api().get(`/api/organizations/${team.organization.id}/projects`).auth(accepted.body.accessToken, { type: 'bearer' }).expect(200);
      expect(await events(team.organization.id, 'member.added')).toEqual([
        expect.objectContaining({ actor_id: newcomer.id, target_type: 'user', target_id: newcomer.id, metadata: { role: 'member', invitationId: known.body.id } }),
      ]);
    });

    it('changes a role, audited; the same role again is a no-op', async () => {
      const team = await createTeam(t);
      const path = `/api/organizations/${team.organization.id}/members/${team.member.id}`;
      const res = await api().patch(path).auth(team.admin.jwt, { type: 'bearer' }).send({ role: 'admin' }).expect(200);
      expect(res.body).toMatchObject({ userId: team.member.id, role: 'admin' });
      await api().patch(path).auth(team.admin.jwt, { type: 'bearer' }).send({ role: 'admin' }).expect(200);
      expect(await events(team.organization.id, 'member.role_changed')).toEqual([
        expect.objectContaining({ target_id: team.member.id, metadata: { from: 'member', to: 'admin' } }),
      ]);
      // Now an admin, the former member may create projects.
      await api().post(`/api/organizations/${team.organization.id}/projects`).auth(team.member.jwt, { type: 'bearer' }).send({ name: 'P' }).expect(201);
    });

    it('never demotes or removes the last admin (409)', async () => {
      const team = await createTeam(t);
      const base = `/api/organizations/${team.organization.id}/members/${team.admin.id}`;
      const demote = await api().patch(base).auth(team.admin.jwt, { type: 'bearer' }).send({ role: 'member' }).expect(409);
      expect(demote.body).toEqual({
        statusCode: 409,
        message: 'The organization must keep at least one admin: promote another member first',
        error: 'Conflict',
        code: 'last_admin',
      });
      await api().delete(base).auth(team.admin.jwt, { type: 'bearer' }).expect(409);
      const [{ admins }] = await t.dataSource.query(`SELECT count(*)::int AS admins FROM memberships WHERE organization_id = $1 AND role = 'admin'`, [team.organization.id]);
      expect(admins).toBe(1);
    });

    it('keeps one admin when two admins demote each other at the same moment', async () => {
      const team = await createTeam(t);
      await t.dataSource.query(`UPDATE memberships SET role = 'admin' WHERE organization_id = $1 AND user_id = $2`, [team.organization.id, team.member.id]);
      const base = `/api/organizations/${team.organization.id}/members`;
      const results = await Promise.all([
        api().patch(`${base}/${team.member.id}`).auth(team.admin.jwt, { type: 'bearer' }).send({ role: 'member' }),
        api().patch(`${base}/${team.admin.id}`).auth(team.member.jwt, { type: 'bearer' }).send({ role: 'member' }),
      ]);
      const statuses = results.map((r) => r.status).sort();
      // One demotion wins; the other is refused, either as the last admin (409) or because its
      // caller has just been demoted, which replaced their membership: their session, older than
      // it, no longer opens the organisation (401 session_predates_membership, SPEC §10).
      expect(statuses[0]).toBe(200);
      expect([401, 409]).toContain(statuses[1]);
      const [{ admins }] = await t.dataSource.query(`SELECT count(*)::int AS admins FROM memberships WHERE organization_id = $1 AND role = 'admin'`, [team.organization.id]);
      expect(admins).toBe(1);
    });

    it('removing a member revokes their agent tokens in that organisation only, audited', async () => {
      const team = await createTeam(t);
      const project = await createProject(t.dataSource, team.organization.id);
      const elsewhere = await createProject(t.dataSource, team.other.id);
      await addMember(t.dataSource, team.other.id, team.member.id, 'member');
      const mine = await createAgentToken(t.dataSource, project);
      const theirs = await createAgentToken(t.dataSource, elsewhere);
      const adminToken = await createAgentToken(t.dataSource, project);
      await t.dataSource.query('UPDATE agent_tokens SET user_id = $1 WHERE id = ANY($2)', [team.member.id, [mine.id, theirs.id]]);
      await t.dataSource.query('UPDATE agent_tokens SET user_id = $1 WHERE id = $2', [team.admin.id, adminToken.id]);

      const res = await api().delete(`/api/organizations/${team.organization.id}/members/${team.member.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(res.body).toEqual({
        userId: team.member.id,
        organizationId: team.organization.id,
        revokedTokens: 1,
        offboarding: { apiKeys: { outcome: 'revoked', count: 0, items: [] }, scimTokensEnded: [], scimTokensHandedOver: [], serviceKeys: [], derivedTokens: [] },
      });

      const resolver = t.app.get(AgentTokenService);
      expect(await resolver.resolve(mine.token)).toBeNull();
      expect(await resolver.resolve(theirs.token)).not.toBeNull();
      expect(await resolver.resolve(adminToken.token)).not.toBeNull();
      await api().get(`/api/organizations/${team.organization.id}/projects`).auth(team.member.jwt, { type: 'bearer' }).expect(404);
      expect(await events(team.organization.id, 'member.removed')).toEqual([
        expect.objectContaining({ actor_id: team.admin.id, target_id: team.member.id, metadata: { role: 'member', revokedTokens: 1, apiKeysRevoked: [], scimTokensEnded: [], serviceKeys: [], derivedTokens: [] } }),
      ]);
      await api().delete(`/api/organizations/${team.organization.id}/members/${team.member.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
    });

    it('lets an admin leave when another admin remains', async () => {
      const team = await createTeam(t);
      await t.dataSource.query(`UPDATE memberships SET role = 'admin' WHERE organization_id = $1 AND user_id = $2`, [team.organization.id, team.member.id]);
      await api().delete(`/api/organizations/${team.organization.id}/members/${team.admin.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      await api().get(`/api/organizations/${team.organization.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
    });

    it('answers 400 naming email and role', async () => {
      const team = await createTeam(t);
      const path = `/api/organizations/${team.organization.id}/members`;
      const cases: [object, string][] = [
        [{ role: 'member' }, 'email must be an email address'],
        [{ email: 'x', role: 'member' }, 'email must be an email address'],
        [{ email: 'x@example.test' }, 'role must be one of: admin, member'],
        [{ email: 'x@example.test', role: 'owner' }, 'role must be one of: admin, member'],
      ];
      for (const [body, message] of cases) {
        const res = await api().post(path).auth(team.admin.jwt, { type: 'bearer' }).send(body).expect(400);
        expect(res.body.message).toEqual(expect.arrayContaining([message]));
      }
      const patch = await api().patch(`${path}/${team.member.id}`).auth(team.admin.jwt, { type: 'bearer' }).send({ role: 'root' }).expect(400);
      expect(patch.body.message).toEqual(['role must be one of: admin, member']);
    });

    it('answers 404 for a member id that is not a member or not an id', async () => {
      const team = await createTeam(t);
      const path = `/api/organizations/${team.organization.id}/members`;
      await api().patch(`${path}/${team.outsider.id}`).auth(team.admin.jwt, { type: 'bearer' }).send({ role: 'admin' }).expect(404);
      await api().patch(`${path}/xyz`).auth(team.admin.jwt, { type: 'bearer' }).send({ role: 'admin' }).expect(404);
      await api().delete(`${path}/xyz`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
    });
  });
});
