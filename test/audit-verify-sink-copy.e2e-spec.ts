import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AuditSealer, AuditService } from '@app/audit';
import { createTeam } from './factories/rest';
import { runCliCaptured } from './helpers/cli';
import { lineSeq, receivedLines, startSinkReceiver, waitFor } from './helpers/sink-receiver';
import { startTestApp, TestApp } from './helpers/test-app';
import { testDatabaseKind } from './helpers/test-state';

/**
 * Tamper beyond the database (SPEC §10, "Chain": the SIEM holds anchors the database cannot
 * rewrite): the last checkpoint and every record after it deleted from the database, the head
 * moved back to match — the chain alone still verifies; `audit-verify --sink-copy` with what the
 * sink received names the gap. The command line runs beside the service: PostgreSQL only.
 */
const onPostgres = testDatabaseKind() === 'postgres';

(onPostgres ? describe : describe.skip)('audit-verify with a sink copy (PostgreSQL)', () => {
  let t: TestApp;
  let folder: string;
  beforeAll(async () => {
    t = await startTestApp({ OUTBOUND_ALLOW_LOOPBACK: 'true' });
    folder = mkdtempSync(join(tmpdir(), 'ag-sink-copy-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('names the records and checkpoint the database lost, which the chain alone cannot show', async () => {
    const team = await createTeam(t);
    const org = team.organization.id;
    const receiver = await startSinkReceiver();
    const sealer = t.app.get(AuditSealer);
    const audit = t.app.get(AuditService);
    const checkpoints: number[] = [];
    try {
      await request(t.baseUrl).post(`/api/organizations/${org}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' }).send({ kind: 'https', url: receiver.url, fromSeq: 1 }).expect(201);
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 6; i++) {
          await audit.record(t.dataSource.manager, { organizationId: org, actorType: 'system', action: 'project.renamed', targetType: 'project', targetId: `p${round}-${i}`, metadata: {} });
        }
        await sealer.sealNow();
        await sealer.sealChain(org, true);
        checkpoints.push(Number((await t.dataSource.query(`SELECT checkpoint_seq FROM audit_chains WHERE chain = $1`, [org]))[0].checkpoint_seq));
      }
      const last = checkpoints[2];
      await waitFor(() => receivedLines(receiver.accepted).some((l) => 'checkpoint' in l && lineSeq(l) === last), 'the last checkpoint delivered');
    } finally {
      await receiver.close();
    }
    const copy = join(folder, 'sink.ndjson');
    writeFileSync(copy, receiver.accepted.map((r) => r.body).join(''));
    const env = { NODE_ENV: 'test', DATABASE_URL: t.config.databaseUrl as string, SESSION_SECRET: t.config.sessionSecret, DATA_DIR: t.config.dataDir };
    const verify = async (...args: string[]) => {
      const out = await runCliCaptured(['audit-verify', '--organization', org, ...args], env);
      return { code: out.code, verdict: JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as Record<string, unknown> };
    };

    const whole = await verify('--sink-copy', copy);
    expect(whole.code).toBe(0);
    expect(whole.verdict).toEqual(expect.objectContaining({ intact: true, sinkCopy: expect.objectContaining({ firstSeq: 1, problem: null }) }));

    // The last checkpoint and every record after the one before it are deleted; the head is moved back to match.
    const [previous, lastCheckpoint] = checkpoints.slice(1);
    await t.dataSource.query(`DELETE FROM audit_checkpoints WHERE chain = $1 AND seq = $2`, [org, lastCheckpoint]);
    await t.dataSource.query(`DELETE FROM audit_events WHERE chain = $1 AND seq > $2`, [org, previous]);
    await t.dataSource.query(
      `UPDATE audit_chains SET seq = $2, checkpoint_seq = $2, hash = (SELECT hash FROM audit_events WHERE chain = $1 AND seq = $2) WHERE chain = $1`,
      [org, previous],
    );
    const alone = await verify();
    expect(alone.code).toBe(0);
    expect(alone.verdict).toEqual(expect.objectContaining({ intact: true, through: previous }));

    const withCopy = await verify('--sink-copy', copy);
    expect(withCopy.code).toBe(1);
    expect(withCopy.verdict).toEqual(
      expect.objectContaining({ intact: false, firstBroken: previous + 1, reason: 'missing_in_database', gap: { from: previous + 1, through: expect.any(Number) } }),
    );
    expect((withCopy.verdict.gap as { through: number }).through).toBeGreaterThanOrEqual(lastCheckpoint);

    // A copy that is not NDJSON of the export is a usage error, not a verdict.
    writeFileSync(join(folder, 'bad.ndjson'), '{"hello": 1}\n');
    const bad = await runCliCaptured(['audit-verify', '--organization', org, '--sink-copy', join(folder, 'bad.ndjson')], env);
    expect(bad).toEqual(expect.objectContaining({ code: 2, stderr: '--sink-copy: line 1 is neither an export line (unmapped.chain) nor a checkpoint.\n' }));
    const missing = await runCliCaptured(['audit-verify', '--organization', org, '--sink-copy', join(folder, 'absent.ndjson')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--sink-copy: cannot read');
  });
});
