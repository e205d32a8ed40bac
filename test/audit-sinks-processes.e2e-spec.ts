import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AuditSealer, AuditService } from '@app/audit';
import { createApiKey, createTeam } from './factories/rest';
import { createProjectsOver, startGatewayProcess } from './helpers/gateway-process';
import { freePort } from './helpers/postgres-server';
import { lineSeq, receivedLines, startSinkReceiver, waitFor } from './helpers/sink-receiver';
import { ClonedDatabase, cloneTemplateDatabase } from './helpers/template-database';
import { startTestApp, TestApp } from './helpers/test-app';
import { readTestState, testDatabaseKind } from './helpers/test-state';

/**
 * Delivery to audit sinks across processes (SPEC §10, "Sinks", "Loss"): a sink that refuses for
 * a while, a restart and a kill -9 of the service in between lose nothing; two instances deliver
 * an organisation one at a time. PostgreSQL only (several processes cannot share the embedded
 * database). Receivers are plain HTTP on 127.0.0.1 under OUTBOUND_ALLOW_LOOPBACK (see
 * audit-sinks.e2e-spec.ts for why not https).
 */
const onPostgres = testDatabaseKind() === 'postgres';

/** Every record's line appears, first occurrences in `seq` order; a repeat is the same line again. */
function expectEveryRecordOnce(lines: Record<string, unknown>[], through: number): void {
  const events = lines.filter((l) => !('checkpoint' in l));
  const first = new Map<number, string>();
  for (const line of events) {
    const text = JSON.stringify(line);
    const seen = first.get(lineSeq(line));
    if (seen === undefined) first.set(lineSeq(line), text);
    else expect(text).toBe(seen);
  }
  const order = [...first.keys()];
  expect(order).toEqual(Array.from({ length: order.length }, (_, i) => i + 1));
  expect(order.length).toBeGreaterThanOrEqual(through);
}

(onPostgres ? describe : describe.skip)('audit sinks across processes (PostgreSQL)', () => {
  let database: ClonedDatabase | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    database = await cloneTemplateDatabase(postgres.port, 'auditsinks');
    env = { DATABASE_URL: database.url, SESSION_SECRET: randomBytes(32).toString('hex'), OUTBOUND_ALLOW_LOOPBACK: 'true', AUDIT_SINK_MAX_BACKOFF_SECONDS: '2' };
  });
  afterAll(() => database?.drop());

  it('a sink refusing for a while, a restart and a kill -9 in between: every record arrives, in order, repeats only of a seq', async () => {
    let accepting = false;
    let onAccepted: (() => void) | undefined;
    const receiver = await startSinkReceiver(() => {
      if (!accepting) return 503;
      onAccepted?.();
      return 200;
    });
    const setup = await startTestApp(env);
    let orgId: string;
    let key: { key: string };
    try {
      const team = await createTeam(setup);
      orgId = team.organization.id;
      key = await createApiKey(setup.dataSource, orgId, ['projects:write', 'audit:read']);
      await request(setup.baseUrl).post(`/api/organizations/${orgId}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' }).send({ kind: 'https', url: receiver.url, fromSeq: 1 }).expect(201);
    } finally {
      await setup.close();
    }
    const write = (url: string, n: number) => createProjectsOver(url, orgId, key.key, n);
    try {
      // Refused while the first process runs, which then stops (SIGTERM) and starts again.
      let gateway = await startGatewayProcess(await freePort(), env);
      await write(gateway.url, 10);
      await waitFor(() => receiver.refusedCount() >= 2, 'refusals');
      await gateway.stop();
      gateway = await startGatewayProcess(await freePort(), env);
      await write(gateway.url, 10);
      // The sink comes back; the process is killed (-9) as the first body arrives, before it hears the answer.
      const child = gateway.child;
      onAccepted = () => {
        onAccepted = undefined;
        child.kill('SIGKILL');
      };
      accepting = true;
      await new Promise((resolve) => child.once('exit', resolve));
      await gateway.stop();
      expect(receiver.accepted.length).toBeGreaterThan(0);
      gateway = await startGatewayProcess(await freePort(), env);
      try {
        await write(gateway.url, 5);
        const check = await startTestApp(env);
        try {
          await check.app.get(AuditSealer).sealNow();
          const [{ seq }] = await check.dataSource.query(`SELECT seq FROM audit_chains WHERE chain = $1`, [orgId!]);
          await waitFor(() => receivedLines(receiver.accepted).some((l) => !('checkpoint' in l) && lineSeq(l) >= Number(seq)), 'the head delivered', 90_000);
          expectEveryRecordOnce(receivedLines(receiver.accepted), Number(seq));
          const created = receivedLines(receiver.accepted).filter((l) => (l.metadata as { event_code?: string })?.event_code === 'project.created');
          expect(new Set(created.map(lineSeq)).size).toBe(25);
        } finally {
          await check.close();
        }
      } finally {
        await gateway.stop();
      }
    } finally {
      await receiver.close();
    }
  }, 300_000);

  it('two instances: one delivers an organisation at a time, in order', async () => {
    const receiver = await startSinkReceiver(() => 200, { answerAfterMs: 30 });
    const a: TestApp = await startTestApp(env);
    const b: TestApp = await startTestApp({ ...env, BASE_URL: a.baseUrl });
    try {
      const team = await createTeam(a);
      const org = team.organization.id;
      for (let i = 0; i < 60; i++) {
        const app = i % 2 === 0 ? a : b;
        await app.app.get(AuditService).record(app.dataSource.manager, { organizationId: org, actorType: 'system', action: 'project.renamed', targetType: 'project', targetId: `r${i}`, metadata: {} });
      }
      await request(a.baseUrl).post(`/api/organizations/${org}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' }).send({ kind: 'https', url: receiver.url, fromSeq: 1 }).expect(201);
      for (let i = 0; i < 60; i++) {
        const app = i % 2 === 0 ? b : a;
        await app.app.get(AuditService).record(app.dataSource.manager, { organizationId: org, actorType: 'system', action: 'project.renamed', targetType: 'project', targetId: `s${i}`, metadata: {} });
      }
      await a.app.get(AuditSealer).sealNow();
      const [{ seq }] = await a.dataSource.query(`SELECT seq FROM audit_chains WHERE chain = $1`, [org]);
      await waitFor(() => receivedLines(receiver.accepted).some((l) => !('checkpoint' in l) && lineSeq(l) >= Number(seq)), 'the head delivered');
      expect(receiver.mostInFlight()).toBe(1);
      const events = receivedLines(receiver.accepted).filter((l) => !('checkpoint' in l)).map(lineSeq);
      expect(events).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
      const holders: { holder: string }[] = await a.dataSource.query(`SELECT holder FROM audit_sink_leases WHERE organization_id = $1`, [org]);
      expect(holders).toHaveLength(1);
    } finally {
      await b.close();
      await a.close();
      await receiver.close();
    }
  });
});
