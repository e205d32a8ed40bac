import { randomBytes } from 'node:crypto';
import { AuditSealer, chainHash, GENESIS_HASH } from '@app/audit';
import { createApiKey, createTeam } from './factories/rest';
import { createProjectsOver, startGatewayProcess } from './helpers/gateway-process';
import { attribute, startOtlpCollector } from './helpers/otlp-collector';
import { freePort } from './helpers/postgres-server';
import { waitFor } from './helpers/sink-receiver';
import { ClonedDatabase, cloneTemplateDatabase } from './helpers/template-database';
import { startTestApp } from './helpers/test-app';
import { readTestState, testDatabaseKind } from './helpers/test-state';

/**
 * The operator's stream (SPEC §10, "Sinks": OTLP logs to OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, fed
 * from the same outbox): a stand-in OTLP/HTTP JSON collector receives every record of the chain,
 * in order, across an outage of the collector and a kill -9 of the service. PostgreSQL only:
 * service processes are stopped, killed and restarted on one database.
 */
const onPostgres = testDatabaseKind() === 'postgres';

(onPostgres ? describe : describe.skip)('the OTLP audit stream across processes (PostgreSQL)', () => {
  let database: ClonedDatabase | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    database = await cloneTemplateDatabase(postgres.port, 'auditotlp');
    env = { DATABASE_URL: database.url, SESSION_SECRET: randomBytes(32).toString('hex'), AUDIT_SINK_MAX_BACKOFF_SECONDS: '2' };
  });
  afterAll(() => database?.drop());

  it('a collector down for a while and a kill -9 in between: every record arrives, in order, each line the export line, repeats only of a seq', async () => {
    const collector = await startOtlpCollector();
    const streamed = { ...env, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'gateway-eu-1' };
    // The setup runs without the stream: only the service processes export.
    const setup = await startTestApp(env);
    let orgId: string;
    let key: { key: string };
    try {
      const team = await createTeam(setup);
      orgId = team.organization.id;
      key = await createApiKey(setup.dataSource, orgId, ['projects:write']);
    } finally {
      await setup.close();
    }
    const write = (url: string, n: number) => createProjectsOver(url, orgId, key.key, n);
    const orgLines = () => collector.received.filter((r) => attribute(r.record, 'audit.chain') === orgId);
    const eventsOf = () => orgLines().filter((r) => attribute(r.record, 'audit.line') === 'event');
    const createdCount = () => new Set(eventsOf().filter((r) => attribute(r.record, 'ocsf.metadata.event_code') === 'project.created').map((r) => Number(attribute(r.record, 'audit.seq')))).size;
    try {
      let gateway = await startGatewayProcess(await freePort(), streamed);
      await write(gateway.url, 10);
      await waitFor(() => createdCount() === 10, 'the first ten records streamed');
      // The collector goes away; records keep being written; it comes back on the same address.
      await collector.down();
      await write(gateway.url, 10);
      await waitFor(() => gateway.stdout().includes('the OTLP collector did not take the audit logs'), 'a failed export');
      // The process is killed (-9) as the first body after the outage arrives, before it hears the answer.
      const child = gateway.child;
      collector.onAccepted(() => {
        collector.onAccepted(undefined);
        child.kill('SIGKILL');
      });
      await collector.up();
      await new Promise((resolve) => child.once('exit', resolve));
      await gateway.stop();
      gateway = await startGatewayProcess(await freePort(), streamed);
      try {
        await write(gateway.url, 5);
        const check = await startTestApp(env);
        try {
          await check.app.get(AuditSealer).sealNow();
          const [{ seq }] = await check.dataSource.query(`SELECT seq FROM audit_chains WHERE chain = $1`, [orgId!]);
          await waitFor(() => eventsOf().some((r) => Number(attribute(r.record, 'audit.seq')) >= Number(seq)), 'the head streamed', 90_000);
        } finally {
          await check.close();
        }
      } finally {
        await gateway.stop();
      }
      expect(createdCount()).toBe(25);
      // First occurrences are 1, 2, 3, … in order; a repeat is the same line again.
      const first = new Map<number, string>();
      for (const { record } of eventsOf()) {
        const seq = Number(attribute(record, 'audit.seq'));
        const seen = first.get(seq);
        if (seen === undefined) first.set(seq, record.body!.stringValue!);
        else expect(record.body!.stringValue).toBe(seen);
      }
      const order = [...first.keys()];
      expect(order).toEqual(Array.from({ length: order.length }, (_, i) => i + 1));
      // Each body is the export line: the chain verifies from the collector's copy alone.
      let prevHash = GENESIS_HASH;
      for (const seq of order) {
        const line = JSON.parse(first.get(seq)!) as Record<string, unknown> & { unmapped: { chain: { seq: number; prevHash: string; hash: string } } };
        const { chain: link, ...unmapped } = line.unmapped;
        expect(link).toMatchObject({ seq, prevHash });
        expect(chainHash({ ...line, unmapped }, seq, link.prevHash)).toBe(link.hash);
        prevHash = link.hash;
      }
      const sample = eventsOf()[0];
      expect(sample.scope).toBe('agent-gateway.audit');
      expect(sample.resource['service.name']).toBe('gateway-eu-1');
      expect(sample.record.severityNumber).toBe(9);
      // In integers: nanoseconds since the epoch are past 2^53, and as a float divided by 1e6 a
      // quarter of the milliseconds came out a hair off (1795923569334.0002).
      const { time } = JSON.parse(sample.record.body!.stringValue!) as { time: number };
      expect(BigInt(sample.record.timeUnixNano!)).toBe(BigInt(time) * 1_000_000n);
    } finally {
      await collector.close();
    }
  }, 300_000);
});
