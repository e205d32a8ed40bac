import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import request from 'supertest';
import { SessionTokenService } from '@app/people';
import { addMember, createProject, createUser } from './factories';
import { insertConnectedClient } from './factories/grants';
import { createApiKey, createTeam, sessionFor } from './factories/rest';
import { startTestApp, TestApp } from './helpers/test-app';

type Team = Awaited<ReturnType<typeof createTeam>>;

/** The policy over REST (SPEC §10 "Policy"): read, replace with its version, try a sample call. */
describe('organisation policy (REST)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const path = (team: Team) => `/api/organizations/${team.organization.id}/policy`;
  const put = (team: Team, body: object, jwt = team.admin.jwt) => request(t.baseUrl).put(path(team)).set('Authorization', `Bearer ${jwt}`).send(body);
  const evaluate = (team: Team, body: object) =>
    request(t.baseUrl).post(`${path(team)}/evaluate`).set('Authorization', `Bearer ${team.admin.jwt}`).send(body);

  it('starts empty at version 0 and allows everything; a save raises the version by one', async () => {
    const team = await createTeam(t);
    const empty = await request(t.baseUrl).get(path(team)).set('Authorization', `Bearer ${team.admin.jwt}`).expect(200);
    expect(empty.body).toEqual({ version: 0, rules: [], updatedAt: null });
    const rules = [{ id: 'no-deletes', description: 'No deletes by machines', risk: ['destructive'], credentialKinds: ['derived'], effect: 'deny' }];
    const saved = await put(team, { version: 0, rules }).expect(200);
    expect(saved.body).toEqual({ version: 1, rules, updatedAt: expect.any(String) });
    const second = await put(team, { version: 1, rules: [] }).expect(200);
    expect(second.body.version).toBe(2);
    const read = await request(t.baseUrl).get(path(team)).set('Authorization', `Bearer ${team.admin.jwt}`).expect(200);
    expect(read.body).toEqual({ version: 2, rules: [], updatedAt: second.body.updatedAt });
  });

  it('refuses a save from a stale version (409) and audits each change with its versions and the hash of its rules', async () => {
    const team = await createTeam(t);
    const rules = [{ id: 'r1', tools: ['delete_task'], effect: 'deny' }];
    await put(team, { version: 0, rules }).expect(200);
    const stale = await put(team, { version: 0, rules: [] }).expect(409);
    expect(stale.body).toMatchObject({ code: 'policy_version_conflict', message: expect.stringContaining('at version 1, not 0') });
    const [event] = await t.dataSource.query(`SELECT actor_type, actor_id, target_type, metadata FROM audit_events WHERE organization_id = $1 AND action = 'policy.updated'`, [
      team.organization.id,
    ]);
    const rulesSha256 = createHash('sha256').update(canonicalize(rules)!).digest('hex');
    expect(event).toEqual({ actor_type: 'user', actor_id: team.admin.id, target_type: 'policy', metadata: { oldVersion: 0, newVersion: 1, rulesSha256 } });
  });

  it('two admins saving from the same version at once: exactly one succeeds, the other gets 409', async () => {
    const team = await createTeam(t);
    const other = await createUser(t.dataSource);
    await addMember(t.dataSource, team.organization.id, other.id, 'admin');
    const otherJwt = await sessionFor(t, other.id);
    const answers = await Promise.all([
      put(team, { version: 0, rules: [{ id: 'a', effect: 'deny' }] }),
      put(team, { version: 0, rules: [{ id: 'b', effect: 'deny' }] }, otherJwt),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
  });

  it.each([
    ['a syntax error', { id: 'bad-syntax', effect: 'deny', when: 'args.status == ' }, /rule "bad-syntax" \(rules\[0\]\), when at position 15: /],
    ['a condition over 200 nodes', { id: 'too-big', effect: 'deny', when: Array.from({ length: 70 }, (_, i) => `tool == "t${i}"`).join(' || ') }, /rule "too-big" \(rules\[0\]\), when at position \d+: Exceeded maxAstNodes \(200\)/],
    ['a condition deeper than 20', { id: 'too-deep', effect: 'deny', when: `${'('.repeat(25)}true${')'.repeat(25)}` }, /rule "too-deep" \(rules\[0\]\), when at position \d+: Exceeded maxDepth \(20\)/],
    ['a matches with a pattern that is not a literal', { id: 'not-literal', effect: 'deny', when: 'args.title.matches(args.pattern)' }, /rule "not-literal".*at position 19: matches takes a string literal pattern only/],
    ['a matches with a pattern RE2 refuses', { id: 'lookbehind', effect: 'deny', when: 'args.title.matches("(?<=a)b")' }, /rule "lookbehind".*invalid pattern/],
    ['an unknown variable', { id: 'unknown-var', effect: 'deny', when: 'user.role == "admin"' }, /rule "unknown-var".*Unknown variable: user/],
    ['a condition that is not a boolean', { id: 'not-bool', effect: 'deny', when: '1 + 2' }, /rule "not-bool".*must be a boolean/],
    ['an unknown tool', { id: 'typo', tools: ['delete_tsk'], effect: 'deny' }, /rule "typo" \(rules\[0\]\), tools: no tool is named "delete_tsk"/],
    ['an unknown field', { id: 'extra', effect: 'deny', actions: ['x'] }, /rule "extra" \(rules\[0\]\), actions: unknown field/],
    ['an unknown effect', { id: 'maybe', effect: 'maybe' }, /rule "maybe" \(rules\[0\]\), effect: must be one of "allow", "deny", "approve"/],
    ['an unknown credential kind', { id: 'kind', effect: 'deny', credentialKinds: ['robot'] }, /credentialKinds.0: must be one of "oauth", "id_jag", "derived"/],
    ['approval settings on a deny rule', { id: 'odd', effect: 'deny', approval: { approvers: 'admins' } }, /rule "odd".*approval is only for a rule whose effect is "approve"/],
  ])('refuses %s at save with 400 invalid_policy naming the rule and where', async (_what, rule, message) => {
    const team = await createTeam(t);
    const res = await put(team, { version: 0, rules: [rule] }).expect(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'invalid_policy' });
    expect(res.body.message).toMatch(message);
    const read = await request(t.baseUrl).get(path(team)).set('Authorization', `Bearer ${team.admin.jwt}`).expect(200);
    expect(read.body.version).toBe(0);
  });

  it('refuses two rules with one id, and a project of another organisation', async () => {
    const team = await createTeam(t);
    const twice = await put(team, { version: 0, rules: [{ id: 'x', effect: 'deny' }, { id: 'x', effect: 'allow' }] }).expect(400);
    expect(twice.body.message).toBe('Invalid policy: rule "x" (rules[1]), id: the id is used by an earlier rule');
    const foreign = await createProject(t.dataSource, team.other.id);
    const res = await put(team, { version: 0, rules: [{ id: 'p', projects: [foreign.id], effect: 'deny' }] }).expect(400);
    expect(res.body.message).toBe(`Invalid policy: rule "p" (rules[0]), projects: ${foreign.id} is not a project of this organisation`);
  });

  it('saves an approve rule whose approvers can reach its count, and refuses one whose approvers cannot', async () => {
    const team = await createTeam(t);
    const rule = { id: 'ask', tools: ['delete_task'], effect: 'approve', approval: { approvers: 'admins', count: 1, selfApproval: false, ttlSeconds: 600 } };
    const saved = await put(team, { version: 0, rules: [rule] }).expect(200);
    expect(saved.body).toEqual({ version: 1, rules: [rule], updatedAt: expect.any(String) });

    const twoAdmins = await put(team, { version: 1, rules: [{ ...rule, approval: { approvers: 'admins', count: 2 } }] }).expect(400);
    expect(twoAdmins.body).toMatchObject({ code: 'invalid_policy' });
    expect(twoAdmins.body.message).toBe('Invalid policy: rule "ask" (rules[0]), approval.count: 2 approvals are needed but the organisation has 1 admin');
    const twoNamed = { ...rule, approval: { approvers: { userIds: [team.admin.id, team.member.id] }, count: 2 } };
    await put(team, { version: 1, rules: [twoNamed] }).expect(200);
    await put(team, { version: 2, rules: [{ ...rule, approval: { approvers: 'members', count: 2 } }] }).expect(200);
    const stranger = await put(team, { version: 3, rules: [{ ...rule, approval: { approvers: { userIds: [team.admin.id, team.outsider.id] } } }] }).expect(400);
    expect(stranger.body.message).toBe(`Invalid policy: rule "ask" (rules[0]), approval.approvers.userIds: ${team.outsider.id} is not a member of this organisation`);
    const unnamed = await put(team, { version: 3, rules: [{ id: 'ask', effect: 'approve' }] }).expect(400);
    expect(unnamed.body.message).toBe('Invalid policy: rule "ask" (rules[0]), approval: a rule whose effect is "approve" names its approvers in approval');
    const badTtl = await put(team, { version: 3, rules: [{ ...rule, approval: { approvers: 'admins', ttlSeconds: 30 } }] }).expect(400);
    expect(badTtl.body).toMatchObject({ code: 'invalid_policy', message: expect.stringContaining('approval.ttlSeconds') });
    const read = await request(t.baseUrl).get(path(team)).set('Authorization', `Bearer ${team.admin.jwt}`).expect(200);
    expect(read.body.version).toBe(3);
  });

  it('is for admins with a session: a member gets 403, an rk_ key gets 403', async () => {
    const team = await createTeam(t);
    await request(t.baseUrl).get(path(team)).set('Authorization', `Bearer ${team.member.jwt}`).expect(403);
    await put(team, { version: 0, rules: [] }, team.member.jwt).expect(403);
    const { key } = await createApiKey(t.dataSource, team.organization.id, ['projects:read']);
    await request(t.baseUrl).get(path(team)).set('Authorization', `Bearer ${key}`).expect(403);
    await request(t.baseUrl).put(path(team)).set('Authorization', `Bearer ${key}`).send({ version: 0, rules: [] }).expect(403);
  });

  describe('a change needs a sign-in of the last 15 minutes', () => {
    const age = (jwt: string, minutes: number) =>
      t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - make_interval(mins => $2) WHERE id = $1`, [
        JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).jti,
        minutes,
      ]);

    it('refuses a save from a session authenticated 16 minutes ago with 401 reauthentication_required; the password refreshes it', async () => {
      const team = await createTeam(t);
      await age(team.admin.jwt, 16);
      const refused = await put(team, { version: 0, rules: [{ id: 'r', effect: 'deny' }] }).expect(401);
      expect(refused.body).toMatchObject({ statusCode: 401, code: 'reauthentication_required' });
      expect((await request(t.baseUrl).get(path(team)).set('Authorization', `Bearer ${team.admin.jwt}`).expect(200)).body.version).toBe(0);

      const reauth = (password: string) =>
        request(t.baseUrl).post('/api/auth/reauthenticate').set('Authorization', `Bearer ${team.admin.jwt}`).send({ password });
      await reauth('not the password').expect(401);
      await put(team, { version: 0, rules: [{ id: 'r', effect: 'deny' }] }).expect(401);
      await reauth(team.admin.password).expect(204);
      await put(team, { version: 0, rules: [{ id: 'r', effect: 'deny' }] }).expect(200);
      const events = await t.dataSource.query(`SELECT actor_id, target_id, metadata FROM audit_events WHERE action = 'session.reauthenticated' AND actor_id = $1`, [
        team.admin.id,
      ]);
      expect(events).toEqual([{ actor_id: team.admin.id, target_id: expect.any(String), metadata: { method: 'password' } }]);
    });

    it('refuses the password for a single sign-on session, which signs in again through its identity provider', async () => {
      const team = await createTeam(t);
      const { accessToken } = await t.app.get(SessionTokenService).issue(team.admin.id, {}, { ssoIssuer: 'https://idp.example.test' });
      const res = await request(t.baseUrl).post('/api/auth/reauthenticate').set('Authorization', `Bearer ${accessToken}`).send({ password: team.admin.password }).expect(400);
      expect(res.body).toMatchObject({ code: 'reauthenticate_with_sso' });
    });

    it('accepts a session authenticated 14 minutes ago', async () => {
      const team = await createTeam(t);
      await age(team.admin.jwt, 14);
      await put(team, { version: 0, rules: [] }).expect(200);
    });
  });

  describe('POST …/policy/evaluate', () => {
    let team: Team;
    let project: { id: string };
    let other: { id: string };
    beforeAll(async () => {
      team = await createTeam(t);
      project = await createProject(t.dataSource, team.organization.id);
      other = await createProject(t.dataSource, team.organization.id);
    });
    const call = (overrides: Record<string, unknown> = {}) => ({
      projectId: project.id,
      tool: 'update_task',
      args: { id: 'task-1', status: 'done' },
      credentialKind: 'oauth',
      clientId: 'client-a',
      userId: team.member.id,
      ...overrides,
    });
    const decide = async (rules: object[], overrides: Record<string, unknown> = {}) => (await evaluate(team, { call: call(overrides), rules }).expect(200)).body;

    it.each([
      ['projects', { projects: ['$project'] }, { projectId: '$other' }],
      ['tools', { tools: ['update_task'] }, { tool: 'get_task', args: { id: 't' } }],
      ['risk', { risk: ['write'] }, { tool: 'list_tasks', args: {} }],
      ['credentialKinds', { credentialKinds: ['oauth'] }, { credentialKind: 'derived', userId: undefined }],
      ['clients', { clients: ['client-a'] }, { clientId: 'client-b' }],
    ])('matches on %s alone', async (_field, match, miss) => {
      const resolve = (o: Record<string, unknown>) =>
        JSON.parse(JSON.stringify(o).replaceAll('"$project"', JSON.stringify(project.id)).replaceAll('"$other"', JSON.stringify(other.id))) as Record<string, unknown>;
      const rules = [{ id: 'only', effect: 'deny', ...resolve(match) }];
      expect(await decide(rules)).toEqual({ effect: 'deny', rule: { id: 'only' } });
      expect(await decide(rules, resolve(miss))).toEqual({ effect: 'allow', rule: null });
    });

    it('matches on every field combined only when all of them match; the first match wins; no match allows', async () => {
      const combined = { id: 'all', description: 'all fields', projects: [project.id], tools: ['update_task'], risk: ['write'], credentialKinds: ['oauth'], clients: ['client-a'], when: 'args.status == "done"', effect: 'deny' };
      const rules = [{ id: 'first-allow', tools: ['get_task'], effect: 'allow' }, combined, { id: 'later', effect: 'deny' }];
      expect(await decide(rules)).toEqual({ effect: 'deny', rule: { id: 'all', description: 'all fields' } });
      expect(await decide(rules, { args: { id: 't', status: 'todo' } })).toEqual({ effect: 'deny', rule: { id: 'later' } });
      expect(await decide(rules, { tool: 'get_task', args: { id: 't' } })).toEqual({ effect: 'allow', rule: { id: 'first-allow' } });
      expect(await decide([combined], { clientId: 'client-b' })).toEqual({ effect: 'allow', rule: null });
    });

    it('evaluates conditions on args, person.role and credential.kind; integers compare as CEL int', async () => {
      const on = (when: string) => [{ id: 'c', when, effect: 'deny' }];
      expect((await decide(on('args.status == "done"'))).effect).toBe('deny');
      expect((await decide(on('args.status == "done"'), { args: { id: 't', status: 'todo' } })).effect).toBe('allow');
      expect((await decide(on('person.role == "member"'))).effect).toBe('deny');
      expect((await decide(on('person.role == "admin"'), { userId: team.admin.id })).effect).toBe('deny');
      expect((await decide(on('person.role == "admin"'))).effect).toBe('allow');
      expect((await decide(on('credential.kind == "id_jag"'), { credentialKind: 'id_jag' })).effect).toBe('deny');
      expect((await decide(on('credential.kind == "id_jag"'))).effect).toBe('allow');
      const { clientId } = await insertConnectedClient(t.dataSource, { userId: team.member.id, organizationId: team.organization.id, projectId: project.id, clientName: 'Claude Desktop' });
      expect((await decide(on('client.name == "Claude Desktop"'), { clientId })).effect).toBe('deny');
      expect((await decide(on('client.name == "Claude Desktop"'))).effect).toBe('allow');
      expect((await decide(on('client == null'), { credentialKind: 'derived', clientId: undefined, userId: undefined })).effect).toBe('deny');
      const list = { tool: 'list_tasks', args: { limit: 50 } };
      expect((await decide(on('args.limit == 50'), list)).effect).toBe('deny');
      expect((await decide(on('args.limit > 20 && args.limit < 51'), list)).effect).toBe('deny');
      expect((await decide(on('type(args.limit) == int'), list)).effect).toBe('deny');
    });

    it('denies when a condition fails to evaluate: a missing key, person.role on a derived token call', async () => {
      const missing = await decide([{ id: 'missing', when: 'args.title == "x"', effect: 'allow' }]);
      expect(missing).toEqual({ effect: 'deny', rule: { id: 'missing' }, evaluationError: expect.stringContaining('title') });
      const derived = await decide([{ id: 'role', when: 'person.role == "member"', effect: 'allow' }], { credentialKind: 'derived' });
      expect(derived).toMatchObject({ effect: 'deny', rule: { id: 'role' } });
    });

    it('tries the saved rules when none are given, and refuses a bad sample call with a 400 naming it', async () => {
      const own = await createTeam(t);
      const p = await createProject(t.dataSource, own.organization.id);
      await put(own, { version: 0, rules: [{ id: 'saved', tools: ['delete_task'], effect: 'deny' }] }).expect(200);
      const sample = { projectId: p.id, tool: 'delete_task', args: { id: 'x' }, credentialKind: 'derived' };
      expect((await evaluate(own, { call: sample }).expect(200)).body).toEqual({ effect: 'deny', rule: { id: 'saved' } });
      expect((await evaluate(own, { call: { ...sample, tool: 'drop_table' } }).expect(400)).body.code).toBe('unknown_tool');
      expect((await evaluate(own, { call: { ...sample, projectId: project.id } }).expect(400)).body.code).toBe('unknown_project');
      expect((await evaluate(own, { call: { ...sample, args: { id: 5 } } }).expect(400)).body.code).toBe('invalid_arguments');
      expect((await evaluate(own, { call: sample, rules: [{ id: 'bad', effect: 'deny', when: '(' }] }).expect(400)).body.code).toBe('invalid_policy');
    });
  });
});
