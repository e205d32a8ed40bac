import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createProject } from './factories';
import { createTeam } from './factories/rest';
import { connectClient } from './helpers/mcp';
import { ClonedDatabase, cloneTemplateDatabase } from './helpers/template-database';
import { startTestApp, TestApp } from './helpers/test-app';
import { readTestState, testDatabaseKind } from './helpers/test-state';

/**
 * A policy saved through one instance applies on the other at its next call (a version check,
 * no timer), and of two admins saving from one version on two instances the second gets 409:
 * two gateways on one PostgreSQL behind one public URL. PostgreSQL only.
 */
const onPostgres = testDatabaseKind() === 'postgres';
(onPostgres ? describe : describe.skip)('organisation policy across two instances on one PostgreSQL', () => {
  let database: ClonedDatabase | undefined;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    database = await cloneTemplateDatabase(postgres.port, 'policy');
    const shared = { DATABASE_URL: database.url, SESSION_SECRET: randomBytes(32).toString('hex') };
    a = await startTestApp(shared);
    b = await startTestApp({ ...shared, BASE_URL: a.baseUrl });
  }, 120_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.drop();
  });

  const policyPath = (team: Awaited<ReturnType<typeof createTeam>>) => `/api/organizations/${team.organization.id}/policy`;

  it('applies a policy saved on one instance at the next call on the other', async () => {
    const team = await createTeam(a);
    const project = await createProject(a.dataSource, team.organization.id);
    const org = `/api/organizations/${team.organization.id}`;
    const auth = { Authorization: `Bearer ${team.admin.jwt}` };
    const key = (await request(a.baseUrl).post(`${org}/agent-service-keys`).set(auth).send({ name: 'machine' }).expect(201)).body as { id: string };
    const { token } = (await request(a.baseUrl).post(`${org}/agent-service-keys/${key.id}/tokens`).set(auth).send({ projectId: project.id }).expect(201)).body as {
      token: string;
    };
    const onB = await connectClient(b.baseUrl, '2025-11-25', { Authorization: `Bearer ${token}` });
    try {
      expect((await onB.client.callTool({ name: 'get_project', arguments: {} })).isError).toBeFalsy();
      await request(a.baseUrl).put(policyPath(team)).set(auth).send({ version: 0, rules: [{ id: 'machines-read-nothing', credentialKinds: ['derived'], effect: 'deny' }] }).expect(200);
      const refused = await onB.client.callTool({ name: 'get_project', arguments: {} });
      expect(refused.content).toEqual([{ type: 'text', text: 'Refused by the organisation\'s policy (rule "machines-read-nothing").' }]);
      await request(a.baseUrl).put(policyPath(team)).set(auth).send({ version: 1, rules: [] }).expect(200);
      expect((await onB.client.callTool({ name: 'get_project', arguments: {} })).isError).toBeFalsy();
    } finally {
      await onB.close();
    }
  });

  it('two admins saving from the same version on two instances: the second gets 409', async () => {
    const team = await createTeam(a);
    const first = await request(a.baseUrl).put(policyPath(team)).set('Authorization', `Bearer ${team.admin.jwt}`).send({ version: 0, rules: [{ id: 'a', effect: 'deny' }] });
    expect(first.status).toBe(200);
    const second = await request(b.baseUrl).put(policyPath(team)).set('Authorization', `Bearer ${team.admin.jwt}`).send({ version: 0, rules: [{ id: 'b', effect: 'deny' }] });
    expect({ status: second.status, code: second.body.code }).toEqual({ status: 409, code: 'policy_version_conflict' });
    const answers = await Promise.all(
      [a, b].map((instance, i) => request(instance.baseUrl).put(policyPath(team)).set('Authorization', `Bearer ${team.admin.jwt}`).send({ version: 1, rules: [{ id: `r${i}`, effect: 'deny' }] })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const saved = await request(b.baseUrl).get(policyPath(team)).set('Authorization', `Bearer ${team.admin.jwt}`).expect(200);
    expect(saved.body.version).toBe(2);
  });
});
