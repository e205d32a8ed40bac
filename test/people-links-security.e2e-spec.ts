import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { generateToken, TOKEN_PREFIXES } from '@app/credential-store';
import { PeopleLinksCleanupService } from '@app/tenancy';
import { addMember, createUser } from './factories';
import { DashboardClient } from './helpers/dashboard';
import { createTeam, sessionFor } from './factories/rest';
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
const RESET_NEEDS_OPERATOR = {
  statusCode: 403,
  message:
    "This person also belongs to an organisation you do not administer, so you cannot reset their password; the operator can, with the command line's reset-link command",
  error: 'Forbidden',
  code: 'reset_needs_operator',
};

/** A fresh documentation address per call, so tests never share a per-address counter. */
let ipSeq = 0;
const freshIp = () => `203.0.113.${++ipSeq}`;

/**
 * Invitations and reset links end with the right of whoever issued them; reset links stay inside
 * what the issuing admin administers; using a reset link is limited like sign-in; invitation
 * links tell nothing about which emails have accounts; spent links are cleaned up.
 */
describe('people links: who may still use them', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_ENABLED: 'false', LOGIN_MAX_FAILURES_PER_IP: '5', TRUST_PROXY: 'true', CLEANUP_INTERVAL_SECONDS: '0' });
  });
  afterAll(() => t.close());

  const api = () => request(t.baseUrl);
  const bearer = { type: 'bearer' } as const;
  const isMember = async (organizationId: string, userId: string) =>
    (await t.dataSource.query(`SELECT 1 FROM memberships WHERE organization_id = $1 AND user_id = $2`, [organizationId, userId])).length === 1;

  /** A team with a second admin, Bea, who can act with her own session. */
  async function teamWithSecondAdmin() {
    const team = await createTeam(t);
    const bea = await createUser(t.dataSource, { name: 'Bea Second-Admin' });
    await addMember(t.dataSource, team.organization.id, bea.id, 'admin');
    return { team, bea: { ...bea, jwt: await sessionFor(t, bea.id) } };
  }
  const inviteAs = async (organizationId: string, jwt: string, email: string, role: 'admin' | 'member') =>
    (await api().post(`/api/organizations/${organizationId}/members`).auth(jwt, bearer).send({ email, role }).expect(201)).body as {
      id: string;
      token: string;
    };
  const invitationStatus = async (organizationId: string, jwt: string, id: string) =>
    ((await api().get(`/api/organizations/${organizationId}/invitations`).auth(jwt, bearer).expect(200)).body.items as { id: string; status: string }[]).find(
      (i) => i.id === id,
    )?.status;

  describe('invitations end with their inviter’s right to invite', () => {
    it('a removed admin cannot come back through an admin invitation they created before; it is listed as withdrawn, audited', async () => {
      const { team, bea } = await teamWithSecondAdmin();
      const comeback = await inviteAs(team.organization.id, bea.jwt, bea.email, 'admin');
      await api().delete(`/api/organizations/${team.organization.id}/members/${bea.id}`).auth(team.admin.jwt, bearer).expect(200);

      const res = await api().post('/api/invitations/accept').auth(bea.jwt, bearer).send({ token: comeback.token }).expect(404);
      expect(res.body).toEqual(INVALID_INVITATION);
      expect(await isMember(team.organization.id, bea.id)).toBe(false);
      expect(await invitationStatus(team.organization.id, team.admin.jwt, comeback.id)).toBe('withdrawn');
      const events = await t.dataSource.query(`SELECT actor_id, metadata FROM audit_events WHERE action = 'invitation.withdrawn' AND target_id = $1`, [
        comeback.id,
      ]);
      expect(events).toEqual([{ actor_id: team.admin.id, metadata: expect.objectContaining({ reason: 'member_removed', invitedBy: bea.id }) }]);
    });

    it('a demoted admin’s second account cannot join as admin through an invitation made before the demotion, by REST or by sign-up', async () => {
      const { team, bea } = await teamWithSecondAdmin();
      const forSecondAccount = await inviteAs(team.organization.id, bea.jwt, `bea-2-${randomUUID().slice(0, 8)}@example.test`, 'admin');
      const forSignup = await inviteAs(team.organization.id, bea.jwt, `bea-3-${randomUUID().slice(0, 8)}@example.test`, 'admin');
      await api().patch(`/api/organizations/${team.organization.id}/members/${bea.id}`).auth(team.admin.jwt, bearer).send({ role: 'member' }).expect(200);

      const second = await createUser(t.dataSource, { name: 'Bea Again' });
      const res = await api().post('/api/invitations/accept').auth(await sessionFor(t, second.id), bearer).send({ token: forSecondAccount.token }).expect(404);
      expect(res.body).toEqual(INVALID_INVITATION);
      expect(await isMember(team.organization.id, second.id)).toBe(false);
      const signup = await api()
        .post('/api/auth/signup')
        .send({ email: `bea-4-${randomUUID().slice(0, 8)}@example.test`, password: 'a long enough password', name: 'Bea Three', invitation: forSignup.token })
        .expect(404);
      expect(signup.body).toEqual(INVALID_INVITATION);
      expect(await invitationStatus(team.organization.id, team.admin.jwt, forSecondAccount.id)).toBe('withdrawn');
      // The admin's own invitations are untouched.
      const own = await inviteAs(team.organization.id, team.admin.jwt, `still-${randomUUID().slice(0, 8)}@example.test`, 'member');
      await api().patch(`/api/organizations/${team.organization.id}/members/${bea.id}`).auth(team.admin.jwt, bearer).send({ role: 'admin' }).expect(200);
      expect(await invitationStatus(team.organization.id, team.admin.jwt, own.id)).toBe('pending');
    });

    it('acceptance itself checks that the inviter is still an admin, whatever path changed the role', async () => {
      const { team, bea } = await teamWithSecondAdmin();
      const invitation = await inviteAs(team.organization.id, bea.jwt, `direct-${randomUUID().slice(0, 8)}@example.test`, 'member');
      // A role change that does not go through the members service (another instance's path, a repair by hand).
      await t.dataSource.query(`UPDATE memberships SET role = 'member' WHERE organization_id = $1 AND user_id = $2`, [team.organization.id, bea.id]);
      const joiner = await createUser(t.dataSource);
      const jwt = await sessionFor(t, joiner.id);
      await api().post('/api/invitations/accept').auth(jwt, bearer).send({ token: invitation.token }).expect(404);
      await api().get(`/signup?invitation=${invitation.token}`).expect(404);
      // Restored, the same link works again (it was never used).
      await t.dataSource.query(`UPDATE memberships SET role = 'admin' WHERE organization_id = $1 AND user_id = $2`, [team.organization.id, bea.id]);
      await api().post('/api/invitations/accept').auth(jwt, bearer).send({ token: invitation.token }).expect(200);
      expect(await isMember(team.organization.id, joiner.id)).toBe(true);
    });
  });

  describe('reset links stay inside what the issuing admin administers', () => {
    const resetPath = (organizationId: string, userId: string) => `/api/organizations/${organizationId}/members/${userId}/reset-link`;
    const useLink = (token: string, password: string) =>
      api().post('/api/auth/password-reset').set('X-Forwarded-For', freshIp()).send({ token, password });

    it('an admin cannot issue a link for a member who also belongs to an organisation they do not administer; nothing is stored', async () => {
      const team = await createTeam(t);
      // The outsider administers another organisation; they also join this one as a member.
      await addMember(t.dataSource, team.organization.id, team.outsider.id, 'member');
      const res = await api().post(resetPath(team.organization.id, team.outsider.id)).auth(team.admin.jwt, bearer).expect(403);
      expect(res.body).toEqual(RESET_NEEDS_OPERATOR);
      // The members page refuses the same way and says why.
      const page = new DashboardClient(t.baseUrl, team.admin.jwt);
      expect((await page.get(`/orgs/${team.organization.id}/members`)).status).toBe(200);
      const refused = await page.post(`/orgs/${team.organization.id}/members/${team.outsider.id}/reset-link`);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('also belongs to an organisation you do not administer');
      expect(refused.text).not.toContain('dgp_');
      expect(await t.dataSource.query(`SELECT 1 FROM password_reset_links WHERE user_id = $1`, [team.outsider.id])).toEqual([]);
      // Being a plain member elsewhere is as much out of reach as being its admin.
      const plain = await createUser(t.dataSource);
      await addMember(t.dataSource, team.organization.id, plain.id, 'member');
      await addMember(t.dataSource, team.other.id, plain.id, 'member');
      await api().post(resetPath(team.organization.id, plain.id)).auth(team.admin.jwt, bearer).expect(403);
      // An admin of both organisations may.
      await addMember(t.dataSource, team.other.id, team.admin.id, 'admin');
      await api().post(resetPath(team.organization.id, plain.id)).auth(team.admin.jwt, bearer).expect(201);
    });

    it('a link stops working when the person joins an organisation its issuer does not administer, leaves, or when the issuer loses the admin role', async () => {
      const { team, bea } = await teamWithSecondAdmin();
      const issue = async (userId: string, jwt = team.admin.jwt) =>
        (await api().post(resetPath(team.organization.id, userId)).auth(jwt, bearer).expect(201)).body as { token: string };

      const joinsElsewhere = await createUser(t.dataSource);
      await addMember(t.dataSource, team.organization.id, joinsElsewhere.id, 'member');
      const link1 = await issue(joinsElsewhere.id);
      await addMember(t.dataSource, team.other.id, joinsElsewhere.id, 'admin');
      expect((await useLink(link1.token, 'a brand new password').expect(404)).body).toEqual(INVALID_RESET_LINK);
      await api().get(`/reset-password?token=${link1.token}`).expect(404);

      const leaves = await createUser(t.dataSource);
      await addMember(t.dataSource, team.organization.id, leaves.id, 'member');
      const link2 = await issue(leaves.id);
      await api().delete(`/api/organizations/${team.organization.id}/members/${leaves.id}`).auth(team.admin.jwt, bearer).expect(200);
      expect((await useLink(link2.token, 'a brand new password').expect(404)).body).toEqual(INVALID_RESET_LINK);

      const person = await createUser(t.dataSource);
      await addMember(t.dataSource, team.organization.id, person.id, 'member');
      const byBea = await issue(person.id, bea.jwt);
      await api().patch(`/api/organizations/${team.organization.id}/members/${bea.id}`).auth(team.admin.jwt, bearer).send({ role: 'member' }).expect(200);
      expect((await useLink(byBea.token, 'a brand new password').expect(404)).body).toEqual(INVALID_RESET_LINK);
      // The person's password is unchanged throughout; a link from a current admin still works.
      await api().post('/api/auth/login').set('X-Forwarded-For', freshIp()).send({ email: person.email, password: person.password }).expect(200);
      const fresh = await issue(person.id);
      await useLink(fresh.token, 'a brand new password').expect(204);
    });
  });

  describe('using reset links is limited like sign-in', () => {
    it('many made-up links from one address get 429 with Retry-After, on REST and on the page; another address is unaffected', async () => {
      const ip = freshIp();
      const madeUp = () => generateToken(TOKEN_PREFIXES.passwordReset);
      for (let i = 0; i < 5; i++) {
        const res = await api().post('/api/auth/password-reset').set('X-Forwarded-For', ip).send({ token: madeUp(), password: 'a long enough password' });
        expect(res.status).toBe(404);
      }
      const limited = await api().post('/api/auth/password-reset').set('X-Forwarded-For', ip).send({ token: madeUp(), password: 'a long enough password' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.body).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        code: 'too_many_reset_attempts',
        message: expect.stringMatching(/^Too many password-reset attempts from this address; try again in \d+ seconds$/),
      });
      const page = await api().post('/reset-password').set('X-Forwarded-For', ip).type('form').send({ token: madeUp(), password: 'a long enough password' });
      expect(page.status).toBe(429);
      expect(Number(page.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(page.text).toContain('Too many password-reset attempts from this network.');
      // A real link from another address still works.
      const team = await createTeam(t);
      const link = (await api().post(`/api/organizations/${team.organization.id}/members/${team.member.id}/reset-link`).auth(team.admin.jwt, bearer).expect(201))
        .body as { token: string };
      await api().post('/api/auth/password-reset').set('X-Forwarded-For', freshIp()).send({ token: link.token, password: 'a long enough password' }).expect(204);
    });
  });

  describe('invitation links tell nothing about accounts', () => {
    it('with sign-up off, a made-up invitation gets the same answer for an email with an account and one without', async () => {
      const existing = await createUser(t.dataSource);
      // Well formed (right prefix and checksum), so it is looked up, but never issued.
      const madeUp = generateToken(TOKEN_PREFIXES.invitation);
      const body = (email: string) => ({ email, password: 'a long enough password', name: 'Probe', invitation: madeUp });
      const known = await api().post('/api/auth/signup').send(body(existing.email));
      const knownOtherCase = await api().post('/api/auth/signup').send(body(existing.email.toUpperCase()));
      const unknown = await api().post('/api/auth/signup').send(body(`nobody-${randomUUID().slice(0, 8)}@example.test`));
      for (const res of [known, knownOtherCase, unknown]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(INVALID_INVITATION);
      }
    });
  });

  describe('periodic cleanup', () => {
    it('deletes lapsed invitations and spent or expired reset links, and keeps the rest', async () => {
      const team = await createTeam(t);
      const org = team.organization.id;
      const invitation = async (email: string) => inviteAs(org, team.admin.jwt, `${email}-${randomUUID().slice(0, 8)}@example.test`, 'member');
      const pending = await invitation('pending');
      const justExpired = await invitation('just-expired');
      const longExpired = await invitation('long-expired');
      const longWithdrawn = await invitation('long-withdrawn');
      const accepted = await invitation('accepted');
      await t.dataSource.query(`UPDATE invitations SET expires_at = now() - interval '1 hour' WHERE id = $1`, [justExpired.id]);
      await t.dataSource.query(`UPDATE invitations SET expires_at = now() - interval '8 days' WHERE id = $1`, [longExpired.id]);
      await t.dataSource.query(`UPDATE invitations SET withdrawn_at = now() - interval '9 days', expires_at = now() - interval '8 days' WHERE id = $1`, [
        longWithdrawn.id,
      ]);
      const joiner = await createUser(t.dataSource);
      await api().post('/api/invitations/accept').auth(await sessionFor(t, joiner.id), bearer).send({ token: accepted.token }).expect(200);
      await t.dataSource.query(`UPDATE invitations SET expires_at = now() - interval '30 days' WHERE id = $1`, [accepted.id]);

      const link = async () =>
        (await api().post(`/api/organizations/${org}/members/${team.member.id}/reset-link`).auth(team.admin.jwt, bearer).expect(201)).body as { token: string };
      const live = await link();
      const expired = await link();
      const used = await link();
      await api().post('/api/auth/password-reset').set('X-Forwarded-For', freshIp()).send({ token: used.token, password: 'a long enough password' }).expect(204);
      const linkIds = async () =>
        (await t.dataSource.query(`SELECT id, used_at IS NOT NULL AS used, expires_at < now() AS expired FROM password_reset_links WHERE user_id = $1`, [
          team.member.id,
        ])) as { id: string; used: boolean; expired: boolean }[];
      const before = await linkIds();
      expect(before).toHaveLength(3);
      // The second link expires (the third's use does not touch it).
      await t.dataSource.query(
        `UPDATE password_reset_links SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND used_at IS NULL AND id = (
           SELECT id FROM password_reset_links WHERE user_id = $1 AND used_at IS NULL ORDER BY created_at DESC LIMIT 1)`,
        [team.member.id],
      );
      void expired;

      const report = await t.app.get(PeopleLinksCleanupService).deleteStale();
      expect(report.invitations).toBeGreaterThanOrEqual(2);
      expect(report.resetLinks).toBeGreaterThanOrEqual(2);
      const left = (await t.dataSource.query(`SELECT id FROM invitations WHERE organization_id = $1`, [org])).map((r: { id: string }) => r.id).sort();
      expect(left).toEqual([pending.id, justExpired.id, accepted.id].sort());
      const linksLeft = await linkIds();
      expect(linksLeft).toEqual([expect.objectContaining({ used: false, expired: false })]);
      // The live one still works after the cleanup.
      await api().get(`/reset-password?token=${live.token}`).expect(200);
    });
  });
});
