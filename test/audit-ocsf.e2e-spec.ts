import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AuditSealer, AuditService } from '@app/audit';
import { addMember } from './factories';
import { auditRecordProblems, validatorOf } from './helpers/ocsf-record-check';
import { adminRest, createPersonWithoutPassword, signupOverHttp, SignedUp } from './factories/rest';
import { connectClient, MODERN_VERSION } from './helpers/mcp';
import { connectClient as connectOAuthClient } from './factories/oauth';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * SPEC §10, OCSF 1.8.0: one row per kind of decision. Each decision produces exactly one
 * record, valid against its class in shared/ocsf (ajv), with the attributes SPEC §10 pins.
 */
/** The schema of an OCSF class (the run's one compiled validator of each, test/helpers/ocsf-record-check.ts). */
function schemaOf(classUid: number) {
  const validate = validatorOf(classUid);
  if (!validate) throw new Error(`no OCSF schema for class_uid ${classUid}`);
  return validate;
}

type Event = Record<string, any>;

describe('every decision is one OCSF record', () => {
  let t: TestApp;
  let admin: SignedUp;
  let m: { project: { id: string }; key: { id: string }; derived: { id: string; token: string } };
  beforeAll(async () => {
    t = await startTestApp();
    admin = await signupOverHttp(t);
    m = await adminRest(() => t.baseUrl, () => admin).serviceKeyToken('Table', 'Table key');
  });
  afterAll(() => t.close());
  const { post } = adminRest(() => t.baseUrl, () => admin);

  async function mcpCall(name: string, args: Record<string, unknown>) {
    const c = await connectClient(t.baseUrl, MODERN_VERSION, { Authorization: `Bearer ${m.derived.token}` });
    try {
      return await c.client.callTool({ name, arguments: args });
    } finally {
      await c.client.close();
    }
  }

  /** The records of `action` written by `step` (reads are batched: waits for them), each validated against its class. */
  async function recordsOf(action: string, step: () => Promise<unknown>): Promise<Event[]> {
    const before = new Set((await t.dataSource.query(`SELECT id FROM audit_events WHERE action = $1`, [action])).map((r: { id: string }) => r.id));
    await step();
    let rows: { id: string; event: Event }[] = [];
    for (let i = 0; i < 50 && rows.length === 0; i++) {
      rows = (await t.dataSource.query(`SELECT id, event FROM audit_events WHERE action = $1`, [action])).filter((r: { id: string }) => !before.has(r.id));
      if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const { event } of rows) {
      const validate = schemaOf(event.class_uid);
      expect(validate(event) ? [] : validate.errors).toEqual([]);
      expect(event.type_uid).toBe(event.class_uid * 100 + event.activity_id);
      expect(event.metadata).toEqual(expect.objectContaining({ version: '1.8.0', uid: expect.any(String), event_code: action }));
    }
    return rows.map((r) => r.event);
  }

  const credential = () => ({ kind: 'project_token', id: m.derived.id, serviceKeyId: m.key.id });
  const serviceKeyActor = () => ({ user: { uid: m.key.id, name: 'Table key', type_id: 4, type: 'Service' } });

  it('an allowed read (tools/call list_tasks): API Activity, Read, decision allowed, batched', async () => {
    const [event, ...more] = await recordsOf('tool.called', () => mcpCall('list_tasks', {}));
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 6003, activity_id: 2, status_id: 1, api: { operation: 'tools/call' } });
    expect(event.metadata.tenant_uid).toBe(admin.organization.id);
    expect(event.actor).toEqual({ ...serviceKeyActor(), authorizations: [{ decision: 'allowed', policy: { name: 'default' } }] });
    expect(event.resources).toEqual([{ uid: m.project.id, type: 'project' }]);
    expect(event.unmapped.credential).toEqual(credential());
    expect(event.unmapped.argumentsSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(event.api.request.data).toEqual({ tool: 'list_tasks' });
  });

  it('a write that ran (tools/call create_task): API Activity, Create, decision allowed, in the write’s transaction', async () => {
    const [event, ...more] = await recordsOf('capability.create_task', () => mcpCall('create_task', { title: 'Audited' }));
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 6003, activity_id: 1, status_id: 1 });
    expect(event.actor.authorizations).toEqual([{ decision: 'allowed', policy: { name: 'default' } }]);
    expect(event.unmapped.credential).toEqual(credential());
    expect(event.resources[0]).toEqual({ uid: m.project.id, type: 'project' });
    expect(event.resources[1]).toEqual({ uid: expect.any(String), type: 'task' });
    expect(event.actor.user).toEqual(serviceKeyActor().user);
    expect(event.src_endpoint.ip).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it('a call with a person’s OAuth token: the person (uid and email) is the actor, the client its app', async () => {
    const connected = await connectOAuthClient(t);
    const c = await connectClient(t.baseUrl, MODERN_VERSION, { Authorization: `Bearer ${connected.accessToken}` });
    const [event, ...more] = await recordsOf('tool.called', async () => {
      try {
        await c.client.callTool({ name: 'list_tasks', arguments: {} });
      } finally {
        await c.client.close();
      }
    });
    expect(more).toEqual([]);
    expect(event.actor).toMatchObject({ user: { uid: connected.user.id, email_addr: connected.user.email, type_id: 1, type: 'User' }, app_uid: connected.client.client_id });
    expect(event.src_endpoint.ip).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it('a refused write (delete_task of no task): API Activity, Delete, status failure', async () => {
    const [event, ...more] = await recordsOf('capability.delete_task', () => mcpCall('delete_task', { id: '00000000-0000-4000-8000-000000000000' }));
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 6003, activity_id: 4, status_id: 2, severity_id: 3 });
  });

  it('a policy denial (tool.denied, as the policy check records it): decision denied, by its rule and version', async () => {
    const [event, ...more] = await recordsOf('tool.denied', () =>
      t.app.get(AuditService).record(t.dataSource.manager, {
        organizationId: admin.organization.id,
        projectId: m.project.id,
        actorType: 'agent_token',
        actorId: m.derived.id,
        action: 'tool.denied',
        targetType: 'project',
        targetId: m.project.id,
        metadata: { tool: 'delete_task', ruleId: 'no-deletes', policyVersion: 7, argumentsSha256: 'a'.repeat(64), credentialKind: 'project_token', serviceKeyId: m.key.id },
      }),
    );
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 6003, activity_id: 4, status_id: 2 });
    expect(event.actor.authorizations).toEqual([{ decision: 'denied', policy: { uid: 'no-deletes', version: '7' } }]);
    expect(event.unmapped).toMatchObject({ credential: credential(), argumentsSha256: 'a'.repeat(64) });
  });

  it('a password sign-in: Authentication, Logon, in the service chain with the person’s organisations', async () => {
    const [event, ...more] = await recordsOf('sign_in.succeeded', () =>
      request(t.baseUrl).post('/api/auth/login').send({ email: admin.user.email, password: admin.password }).expect(200),
    );
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 3002, activity_id: 1, status_id: 1, user: { uid: admin.user.id, type_id: 1 } });
    expect(event.metadata.tenant_uid).toBeUndefined();
    expect(event.unmapped.organizations).toEqual([admin.organization.id]);
    expect(event.src_endpoint.ip).toMatch(/^(127\.0\.0\.1|::1)$/);
    const [row] = await t.dataSource.query(`SELECT chain FROM audit_events WHERE id = $1`, [event.metadata.uid]);
    expect(row.chain).toBe('service');
  });

  it('a failed sign-in: Authentication, status failure, written before the answer', async () => {
    const [event, ...more] = await recordsOf('sign_in.failed', () =>
      request(t.baseUrl).post('/api/auth/login').send({ email: admin.user.email, password: 'not-the-password-1' }).expect(401),
    );
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 3002, status_id: 2, status_detail: 'wrong_password', user: { uid: admin.user.id } });
    expect(JSON.stringify(event)).not.toContain('not-the-password-1');
  });

  it('an address outside ASCII: an international domain in its ASCII form, a local part outside ASCII as the user’s name, every record valid', async () => {
    const suffix = randomUUID().slice(0, 8);
    const projectBy = async (person: SignedUp) => {
      const [event] = await recordsOf('project.created', () => adminRest(() => t.baseUrl, () => person).post('/projects', { name: `By ${suffix}` }).expect(201));
      return event;
    };
    const idn = await signupOverHttp(t, { email: `ana-${suffix}@bücher.example` });
    expect((await projectBy(idn)).actor.user).toEqual({ uid: idn.user.id, type_id: 1, type: 'User', email_addr: `ana-${suffix}@xn--bcher-kva.example` });

    const local = await signupOverHttp(t, { email: `zoë-${suffix}@example.com` });
    expect((await projectBy(local)).actor.user).toEqual({ uid: local.user.id, type_id: 1, type: 'User', name: `zoë-${suffix}@example.com` });
  });

  it('a project token derived: Authorize Session, its permissions as privileges, for the service key', async () => {
    const project = (await post('/projects', { name: 'Derived' }).expect(201)).body as { id: string };
    const [event, ...more] = await recordsOf('project_token.derived', () => post(`/agent-service-keys/${m.key.id}/tokens`, { projectId: project.id }).expect(201));
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 3003, activity_id: 1, user: { uid: m.key.id, type_id: 4 } });
    expect(event.privileges).toEqual(expect.arrayContaining(['tasks:read']));
    expect(event.actor.user).toEqual({ uid: admin.user.id, email_addr: admin.user.email, type_id: 1, type: 'User' });
  });

  it('a role change: User Access Management, the member and the new role', async () => {
    const person = await createPersonWithoutPassword(t.dataSource);
    await addMember(t.dataSource, admin.organization.id, person.id, 'member');
    const [event, ...more] = await recordsOf('member.role_changed', () =>
      request(t.baseUrl).patch(`/api/organizations/${admin.organization.id}/members/${person.id}`).auth(admin.accessToken, { type: 'bearer' }).send({ role: 'admin' }).expect(200),
    );
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 3005, activity_id: 1, user: { uid: person.id, type_id: 1 }, privileges: ['admin'] });
  });

  it('a project created: Entity Management, Create, the project as entity', async () => {
    const [event, ...more] = await recordsOf('project.created', () => post('/projects', { name: 'Entity' }).expect(201));
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 3004, activity_id: 1, entity: { type: 'project', uid: expect.any(String), name: 'Entity' } });
    expect(event.actor.user.uid).toBe(admin.user.id);
  });

  it('a password changed: Account Change, Password Change', async () => {
    const other = await signupOverHttp(t);
    const [event, ...more] = await recordsOf('password.changed', () =>
      request(t.baseUrl).post('/api/auth/password').auth(other.accessToken, { type: 'bearer' }).send({ currentPassword: other.password, newPassword: `new-${other.password}` }).expect((res) => expect(res.status).toBeLessThan(300)),
    );
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 3001, activity_id: 3, user: { uid: other.user.id, type_id: 1 } });
  });

  it('refused MCP requests (three 401s from one address): one aggregate with OCSF count 3, nobody can inflate the table', async () => {
    const refuse = () =>
      request(t.baseUrl).post('/api/mcp').set('Authorization', 'Bearer dga_not-a-live-token-at-all').set('Accept', 'application/json, text/event-stream').send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }).expect(401);
    const before = await t.dataSource.query(`SELECT id FROM audit_events WHERE action = 'mcp.refused'`);
    await Promise.all([refuse(), refuse(), refuse()]);
    let rows: { event: Event; seal_after: Date | null }[] = [];
    for (let i = 0; i < 100 && (rows.length === 0 || rows[0].event.count < 3); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await t.dataSource.query(`SELECT event, seal_after FROM audit_events WHERE action = 'mcp.refused' AND NOT (id = ANY($1::uuid[]))`, [before.map((r: { id: string }) => r.id)]);
    }
    expect(rows).toHaveLength(1);
    const [{ event, seal_after }] = rows;
    const apiActivity = schemaOf(6003);
    expect(apiActivity(event) ? [] : apiActivity.errors).toEqual([]);
    expect(event).toMatchObject({ class_uid: 6003, activity_id: 99, status_id: 2, count: 3, status_detail: 'unrecognised_agent_token', actor: { session: { uid: 'anonymous' } } });
    expect(event.time % 60_000).toBe(0);
    expect(event.unmapped.metadata).toMatchObject({ status: 401, count: 3 });
    // Sealed once its minute has closed.
    expect(new Date(seal_after as Date).getTime()).toBeGreaterThan(event.time + 60_000);
  });

  it('the run’s check of every record refuses an event invalid for its class, and one carrying a secret', async () => {
    const [good] = await t.dataSource.query(`SELECT event FROM audit_events WHERE action = 'project.created' LIMIT 1`);
    expect(auditRecordProblems(good.event)).toEqual([]);
    const { entity: _entity, ...withoutEntity } = good.event;
    expect(auditRecordProblems(withoutEntity)).toEqual([expect.stringContaining("must have required property 'entity'")]);
    const leaked = { ...good.event, unmapped: { ...good.event.unmapped, metadata: { note: `dga_${'x'.repeat(40)}` } } };
    expect(auditRecordProblems(leaked)).toEqual([expect.stringMatching(/^a secret-looking value: dga_/)]);
    const named = { ...good.event, unmapped: { ...good.event.unmapped, client_secret: 'hunter2' } };
    expect(auditRecordProblems(named)).toEqual(['attributes named like secrets: .unmapped.client_secret']);
    const unstorable = { ...good.event, unmapped: { ...good.event.unmapped, metadata: { note: 'cut \ud83d' } } };
    expect(auditRecordProblems(unstorable)).toEqual(['a NUL or a lone surrogate at unmapped.metadata.note']);
  });

  it('a refused token request: Authorize Session, status failure, the error and the client named, in the service chain', async () => {
    const [event, ...more] = await recordsOf('token.refused', () =>
      request(t.baseUrl).post('/api/agent/oauth/token').type('form').send({ grant_type: 'authorization_code', code: 'dgc_nothing', client_id: 'https://unknown.example/client.json' }).expect((res) => expect(res.status).toBeGreaterThanOrEqual(400)),
    );
    expect(more).toEqual([]);
    expect(event).toMatchObject({ class_uid: 3003, status_id: 2, status_detail: 'invalid_client', actor: { app_uid: 'https://unknown.example/client.json' } });
    expect(event.metadata.tenant_uid).toBeUndefined();
  });

  it('a refused token request whose client_id is cut inside an emoji: the record keeps whole characters, and is written and sealed', async () => {
    const clientId = `https://x.example/${'a'.repeat(2047 - 18)}😀`;
    const [event] = await recordsOf('token.refused', () =>
      request(t.baseUrl).post('/api/agent/oauth/token').type('form').send({ grant_type: 'authorization_code', code: 'dgc_nothing', client_id: clientId }).expect((res) => expect(res.status).toBeGreaterThanOrEqual(400)),
    );
    expect(event?.actor.app_uid).toBe(clientId.slice(0, 2047));
    await t.app.get(AuditSealer).sealNow();
    const [row] = await t.dataSource.query(`SELECT seq FROM audit_events WHERE id = $1`, [event.metadata.uid]);
    expect(row.seq).not.toBeNull();
  });
});
