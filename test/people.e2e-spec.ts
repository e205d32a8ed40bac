import request from 'supertest';
import { createUser } from './factories';
import { createApiKey, createTeam, sessionFor } from './factories/rest';
import { startTestApp, TestApp } from './helpers/test-app';

const INVALID_INVITATION = {
  statusCode: 404,
  message: 'This invitation link is unknown, already used, withdrawn or expired; ask for a new one',
  error: 'Not Found',
  code: 'invalid_invitation',
};
const INVALID_RESET_LINK = {
  statusCode: 404,
  message: 'This password-reset link is unknown, already used or expired; ask for a new one',
  error: 'Not Found',
  code: 'invalid_reset_link',
};

/** Invitations, reset links and sign-out, on a deployment where open sign-up is off. */
describe('people over time: invitations, reset links, sign-out (SPEC §8)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_ENABLED: 'false' });
  });
  afterAll(() => t.close());

  const api = () => request(t.baseUrl);
  const bearer = { type: 'bearer' } as const;
  const invite = async (team: Awaited<ReturnType<typeof createTeam>>, email: string, role: 'admin' | 'member' = 'member') =>
    (await api().post(`/api/organizations/${team.organization.id}/members`).auth(team.admin.jwt, bearer).send({ email, role }).expect(201)).body as {
      id: string;
      token: string;
      link: string;
    };
  const isMember = async (organizationId: string, userId: string) =>
    (await t.dataSource.query(`SELECT 1 FROM memberships WHERE organization_id = $1 AND user_id = $2`, [organizationId, userId])).length === 1;
  const login = (email: string, password: string) => api().post('/api/auth/login').send({ email, password });

  describe('invitations', () => {
    it('a person with the invited email cannot join without the link; with it they join once, and the link is then spent', async () => {
      const team = await createTeam(t);
      const invited = await createUser(t.dataSource, { name: 'Ivy Invited' });
      const sameEmailElsewhere = await sessionFor(t, invited.id);
      const invitation = await invite(team, invited.email);
      // Without the link (or with another, made-up one) nothing happens, even for the matching email.
      await api().post('/api/invitations/accept').auth(sameEmailElsewhere, bearer).send({}).expect(400);
      const forged = `dgi_${'A'.repeat(49)}`;
      expect((await api().post('/api/invitations/accept').auth(sameEmailElsewhere, bearer).send({ token: forged }).expect(404)).body).toEqual(INVALID_INVITATION);
      expect(await isMember(team.organization.id, invited.id)).toBe(false);
      // With the link: joined with the invited role, with a new session that opens the organisation;
      // the session that accepted has ended (a session never opens a membership younger than itself).
      const accepted = await api().post('/api/invitations/accept').auth(sameEmailElsewhere, bearer).send({ token: invitation.token }).expect(200);
      expect(await isMember(team.organization.id, invited.id)).toBe(true);
      expect(accepted.body).toMatchObject({ organizationId: team.organization.id, role: 'member', accessToken: expect.any(String), tokenType: 'Bearer' });
      await api().get('/api/me').auth(sameEmailElsewhere, bearer).expect(401);
      await api().get(`/api/organizations/${team.organization.id}/projects`).auth(accepted.body.accessToken, bearer).expect(200);
      // Single use: nobody else gets in with it.
      const second = await createUser(t.dataSource, { name: 'Sam Second' });
      const res = await api().post('/api/invitations/accept').auth(await sessionFor(t, second.id), bearer).send({ token: invitation.token }).expect(404);
      expect(res.body).toEqual(INVALID_INVITATION);
      expect(await isMember(team.organization.id, second.id)).toBe(false);
      const list = await api().get(`/api/organizations/${team.organization.id}/invitations`).auth(team.admin.jwt, bearer).expect(200);
      expect(list.body.items).toEqual([expect.objectContaining({ id: invitation.id, status: 'accepted', acceptedAt: expect.any(String) })]);
      expect(JSON.stringify(list.body)).not.toContain(invitation.token);
    });

    it('two people presenting the same link at once: exactly one joins', async () => {
      const team = await createTeam(t);
      const invitation = await invite(team, 'race@example.test');
      const a = await createUser(t.dataSource);
      const b = await createUser(t.dataSource);
      const results = await Promise.all(
        [a, b].map(async (p) => api().post('/api/invitations/accept').auth(await sessionFor(t, p.id), bearer).send({ token: invitation.token })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 404]);
      expect([await isMember(team.organization.id, a.id), await isMember(team.organization.id, b.id)].filter(Boolean)).toHaveLength(1);
    });

    it('an expired or withdrawn invitation does not work; a member cannot list or withdraw; withdrawal is audited', async () => {
      const team = await createTeam(t);
      const person = await createUser(t.dataSource);
      const jwt = await sessionFor(t, person.id);
      const expired = await invite(team, person.email);
      await t.dataSource.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
      await api().post('/api/invitations/accept').auth(jwt, bearer).send({ token: expired.token }).expect(404);

      const withdrawn = await invite(team, person.email, 'admin');
      const base = `/api/organizations/${team.organization.id}/invitations`;
      await api().get(base).auth(team.member.jwt, bearer).expect(403);
      await api().delete(`${base}/${withdrawn.id}`).auth(team.member.jwt, bearer).expect(403);
      const res = await api().delete(`${base}/${withdrawn.id}`).auth(team.admin.jwt, bearer).expect(200);
      expect(res.body).toMatchObject({ id: withdrawn.id, status: 'withdrawn', role: 'admin' });
      await api().delete(`${base}/${withdrawn.id}`).auth(team.admin.jwt, bearer).expect(404);
      await api().delete(`${base}/not-a-uuid`).auth(team.admin.jwt, bearer).expect(404);
      await api().post('/api/invitations/accept').auth(jwt, bearer).send({ token: withdrawn.token }).expect(404);
      expect(await isMember(team.organization.id, person.id)).toBe(false);
      const list = await api().get(base).auth(team.admin.jwt, bearer).expect(200);
      expect(list.body.items.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
        [withdrawn.id, 'withdrawn'],
        [expired.id, 'expired'],
      ]);
      const [event] = await t.dataSource.query(`SELECT actor_id, target_id FROM audit_events WHERE action = 'invitation.withdrawn' AND organization_id = $1`, [
        team.organization.id,
      ]);
      expect(event).toEqual({ actor_id: team.admin.id, target_id: withdrawn.id });
      // Another organisation's admin cannot see or withdraw it.
      await api().get(base).auth(team.outsider.jwt, bearer).expect(404);
    });

    it('signing up from the link joins the organisation without creating one, with sign-up otherwise off', async () => {
      const team = await createTeam(t);
      const invitation = await invite(team, 'newcomer@example.test', 'admin');
      const body = { email: 'newcomer@example.test', password: 'a long enough password', name: 'Nell Newcomer' };
      await api().post('/api/auth/signup').send({ ...body, organizationName: 'Mine' }).expect(403);
      const res = await api().post('/api/auth/signup').send({ ...body, invitation: invitation.token }).expect(201);
      expect(res.body).toMatchObject({ organization: { id: team.organization.id, name: team.organization.name }, role: 'admin' });
      const me = await api().get('/api/me').auth(res.body.accessToken, bearer).expect(200);
      expect(me.body.memberships).toEqual([{ organization: { id: team.organization.id, name: team.organization.name }, role: 'admin' }]);
      // Spent: a second sign-up from it creates nothing.
      const again = await api().post('/api/auth/signup').send({ ...body, email: 'another@example.test', invitation: invitation.token }).expect(404);
      expect(again.body).toEqual(INVALID_INVITATION);
      expect(await t.dataSource.query(`SELECT 1 FROM users WHERE email = 'another@example.test'`)).toEqual([]);
    });

    it('the sign-up page opened from the link shows the organisation and joins it', async () => {
      const team = await createTeam(t);
      const invitation = await invite(team, 'page-newcomer@example.test');
      const agent = request.agent(t.baseUrl);
      const form = await agent.get(`/signup?invitation=${invitation.token}`).expect(200);
      expect(form.text).toContain(team.organization.name);
      expect(form.text).not.toContain('name="organizationName"');
      const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)![1];
      const posted = await agent
        .post('/signup')
        .type('form')
        .send({ csrf, invitation: invitation.token, email: 'page-newcomer@example.test', name: 'Pia Page', password: 'a long enough password' })
        .expect(303);
      expect((posted.headers['set-cookie'] as unknown as string[] | undefined)?.join(';')).toContain('ag_session=');
      const [user] = await t.dataSource.query(`SELECT id FROM users WHERE email = 'page-newcomer@example.test'`);
      expect(await isMember(team.organization.id, user.id)).toBe(true);
      await agent.get(`/signup?invitation=${invitation.token}`).expect(404);
      await agent.get('/signup').expect(403);
    });
  });

  describe('password-reset links', () => {
    it('an admin issues one for a member; using it sets the password, ends every session, and works once', async () => {
      const team = await createTeam(t);
      const person = await createUser(t.dataSource, { name: 'Rita Reset' });
      await t.dataSource.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'member')`, [team.organization.id, person.id]);
      const before = (await login(person.email, person.password).expect(200)).body.accessToken as string;
      await api().get('/api/me').auth(before, bearer).expect(200);

      const path = `/api/organizations/${team.organization.id}/members/${person.id}/reset-link`;
      await api().post(path).auth(team.member.jwt, bearer).expect(403);
      await api().post(`/api/organizations/${team.organization.id}/members/${team.outsider.id}/reset-link`).auth(team.admin.jwt, bearer).expect(404);
      const key = await createApiKey(t.dataSource, team.organization.id, ['members:read']);
      await api().post(path).auth(key.key, bearer).expect(403);
      const issued = await api().post(path).auth(team.admin.jwt, bearer).expect(201);
      expect(issued.body).toEqual({
        link: expect.stringMatching(/\/reset-password\?token=dgp_[0-9A-Za-z]{49}$/),
        token: expect.stringMatching(/^dgp_[0-9A-Za-z]{49}$/),
        expiresAt: expect.any(String),
      });
      const ttl = Date.parse(issued.body.expiresAt) - Date.now();
      expect(ttl).toBeGreaterThan(59 * 60 * 1000);
      expect(ttl).toBeLessThanOrEqual(60 * 60 * 1000);

      await api().post('/api/auth/password-reset').send({ token: issued.body.token, password: 'short' }).expect(400);
      const breached = await api().post('/api/auth/password-reset').send({ token: issued.body.token, password: 'password1234' }).expect(400);
      expect(JSON.stringify(breached.body)).not.toContain(issued.body.token);
      await api().post('/api/auth/password-reset').send({ token: issued.body.token, password: 'the brand new password' }).expect(204);
      await api().get('/api/me').auth(before, bearer).expect(401);
      await login(person.email, person.password).expect(401);
      const after = (await login(person.email, 'the brand new password').expect(200)).body.accessToken as string;
      await api().get('/api/me').auth(after, bearer).expect(200);
      const again = await api().post('/api/auth/password-reset').send({ token: issued.body.token, password: 'yet another password' }).expect(404);
      expect(again.body).toEqual(INVALID_RESET_LINK);
      const actions = await t.dataSource.query(
        `SELECT action, organization_id, actor_id FROM audit_events WHERE target_id = $1 AND action LIKE 'password_reset.%' ORDER BY created_at`,
        [person.id],
      );
      expect(actions).toEqual([
        { action: 'password_reset.issued', organization_id: team.organization.id, actor_id: team.admin.id },
        { action: 'password_reset.used', organization_id: null, actor_id: person.id },
      ]);
      expect(JSON.stringify(await t.dataSource.query(`SELECT * FROM audit_events WHERE target_id = $1`, [person.id]))).not.toContain(issued.body.token);
    });

    it('an expired link is refused; the reset page sets a password once', async () => {
      const team = await createTeam(t);
      const path = `/api/organizations/${team.organization.id}/members/${team.member.id}/reset-link`;
      const expired = (await api().post(path).auth(team.admin.jwt, bearer).expect(201)).body;
      await t.dataSource.query(`UPDATE password_reset_links SET expires_at = now() - interval '1 second'`);
      await api().post('/api/auth/password-reset').send({ token: expired.token, password: 'the brand new password' }).expect(404);
      await api().get(`/reset-password?token=${expired.token}`).expect(404);

      const link = (await api().post(path).auth(team.admin.jwt, bearer).expect(201)).body;
      const form = await api().get(new URL(link.link).pathname + new URL(link.link).search).expect(200);
      expect(form.text).toContain('Set a new password');
      await api().post('/reset-password').type('form').send({ token: link.token, password: 'page chosen password' }).expect(200);
      await api().get('/api/me').auth(team.member.jwt, bearer).expect(401);
      await login(team.member.email, 'page chosen password').expect(200);
      await api().post('/reset-password').type('form').send({ token: link.token, password: 'page chosen password 2' }).expect(404);
    });
  });

  describe('sign-out', () => {
    it('sign-out ends this session only; sign-out everywhere ends every earlier one, not later ones', async () => {
      const person = await createUser(t.dataSource);
      const first = (await login(person.email, person.password).expect(200)).body.accessToken as string;
      const second = (await login(person.email, person.password).expect(200)).body.accessToken as string;
      const out = await api().post('/api/auth/logout').auth(first, bearer).expect(204);
      expect((out.headers['set-cookie'] as unknown as string[] | undefined)?.join(';')).toMatch(/ag_session=;/);
      await api().get('/api/me').auth(first, bearer).expect(401);
      await api().post('/api/auth/logout').auth(first, bearer).expect(401);
      await api().get('/api/me').auth(second, bearer).expect(200);

      const third = (await login(person.email, person.password).expect(200)).body.accessToken as string;
      await api().post('/api/auth/logout-all').auth(third, bearer).expect(204);
      await api().get('/api/me').auth(second, bearer).expect(401);
      await api().get('/api/me').auth(third, bearer).expect(401);
      const fourth = (await login(person.email, person.password).expect(200)).body.accessToken as string;
      await api().get('/api/me').auth(fourth, bearer).expect(200);
    });

    it('the pages sign out through POST /logout: the cookie is cleared and its session refused', async () => {
      const person = await createUser(t.dataSource);
      const jwt = (await login(person.email, person.password).expect(200)).body.accessToken as string;
      const res = await api().post('/logout').set('Cookie', `ag_session=${jwt}`).expect(303);
      expect(res.headers.location).toBe('/login');
      expect((res.headers['set-cookie'] as unknown as string[] | undefined)?.join(';')).toMatch(/ag_session=;/);
      await api().get('/api/me').auth(jwt, bearer).expect(401);
    });
  });
});
