import request from 'supertest';
import { AuditChainService, AuditSealer, AuditService } from '@app/audit';
import { AuditRetentionJob } from '@app/audit-sinks';
import { createTeam } from './factories/rest';
import { runCliCaptured } from './helpers/cli';
import { startSinkReceiver, waitFor } from './helpers/sink-receiver';
import { startTestApp, TestApp } from './helpers/test-app';
import { readTestState } from './helpers/test-state';

/**
 * Retention (SPEC §10, "Retention"): AUDIT_RETENTION_DAYS (400 here, the default) removes whole
 * sealed segments up to a checkpoint, which stays as the chain's anchor; never records a sink has
 * not received; an organisation may keep its records longer; each expiry is a record of the chain,
 * and the chain verifies after it. Records are made old by moving their `created_at` back (their
 * events, and so their hashes, are untouched): retention reads when a record was written.
 */
describe('audit retention', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ OUTBOUND_ALLOW_LOOPBACK: 'true' });
  });
  afterAll(() => t.close());

  const api = () => request(t.baseUrl);
  const sealer = () => t.app.get(AuditSealer);

  /** `n` records, sealed, and a checkpoint of the head: answers its `seq`. */
  async function segment(organizationId: string, n: number): Promise<number> {
    const audit = t.app.get(AuditService);
    for (let i = 0; i < n; i++) {
      await audit.record(t.dataSource.manager, { organizationId, actorType: 'system', action: 'project.renamed', targetType: 'project', targetId: `p${i}`, metadata: { i } });
    }
    await sealer().sealNow();
    await sealer().sealChain(organizationId, true);
    return Number((await t.dataSource.query(`SELECT seq FROM audit_chains WHERE chain = $1`, [organizationId]))[0].seq);
  }

  const ageThrough = (organizationId: string, seq: number, days: number) =>
    t.dataSource.query(`UPDATE audit_events SET created_at = now() - $3 * interval '1 day' WHERE chain = $1 AND seq <= $2`, [organizationId, seq, days]);
  const seqs = async (organizationId: string): Promise<number[]> =>
    (await t.dataSource.query(`SELECT seq FROM audit_events WHERE chain = $1 AND seq IS NOT NULL ORDER BY seq`, [organizationId])).map((r: { seq: string }) => Number(r.seq));

  it('an organisation may keep its records longer, never shorter; the change is an admin’s with a recent sign-in, and audited', async () => {
    const team = await createTeam(t);
    const org = team.organization.id;
    const path = `/api/organizations/${org}/audit-retention`;
    await api().put(path).auth(team.member.jwt, { type: 'bearer' }).send({ retentionDays: 500 }).expect(403);
    await api().get(path).auth(team.member.jwt, { type: 'bearer' }).expect(403);
    await api().get(path).auth(team.outsider.jwt, { type: 'bearer' }).expect(404);
    const shorter = await api().put(path).auth(team.admin.jwt, { type: 'bearer' }).send({ retentionDays: 300 }).expect(400);
    expect(shorter.body.message).toContain('retentionDays must be at least 400 (AUDIT_RETENTION_DAYS)');
    for (const bad of [{}, { retentionDays: 'forever' }, { retentionDays: 1.5 }, { retentionDays: 40000 }]) {
      const res = await api().put(path).auth(team.admin.jwt, { type: 'bearer' }).send(bad).expect(400);
      expect(JSON.stringify(res.body.message)).toContain('retentionDays');
    }
    const longer = await api().put(path).auth(team.admin.jwt, { type: 'bearer' }).send({ retentionDays: 500 }).expect(200);
    expect(longer.body).toEqual(expect.objectContaining({ retentionDays: 500, effectiveRetentionDays: 500 }));
    const changes = () => api().get(`/api/organizations/${org}/audit-events?action=audit_retention.updated`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect((await changes()).body.items.map((e: { metadata: unknown }) => e.metadata)).toEqual([{ retentionDays: 500, previousRetentionDays: null }]);

    const a = await segment(org, 5);
    await segment(org, 5);
    await ageThrough(org, a, 450);
    expect((await t.app.get(AuditRetentionJob).runOnce()).get(org)).toBeUndefined();
    await ageThrough(org, a, 501);
    expect((await t.app.get(AuditRetentionJob).runOnce()).get(org)).toEqual({ throughSeq: a, records: a });

    const back = await api().put(path).auth(team.admin.jwt, { type: 'bearer' }).send({ retentionDays: null }).expect(200);
    expect(back.body).toEqual(expect.objectContaining({ retentionDays: null, effectiveRetentionDays: 400, expiredThroughSeq: a }));
    await sealer().sealNow();
    // The first change was in the removed segment; the second is in the chain.
    expect((await changes()).body.items.map((e: { metadata: unknown }) => e.metadata)).toEqual([{ retentionDays: null, previousRetentionDays: 500 }]);
  });

  it('removes old segments through a checkpoint, never what a sink has not received; the rest verifies from that checkpoint', async () => {
    const team = await createTeam(t);
    const org = team.organization.id;
    const receiver = await startSinkReceiver(() => 503);
    try {
      await api().post(`/api/organizations/${org}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' }).send({ kind: 'https', url: receiver.url, fromSeq: 1 }).expect(201);
      const a = await segment(org, 10);
      const b = await segment(org, 10);
      await segment(org, 5);
      // Everything through a is old, and part of the segment after it: a is the last whole segment past the period.
      await ageThrough(org, b - 3, 401);

      // The sink is behind (it refuses): nothing goes.
      await waitFor(() => receiver.refusedCount() > 0, 'a refused delivery');
      expect((await t.app.get(AuditRetentionJob).runOnce()).get(org)).toBeUndefined();
      expect((await seqs(org))[0]).toBe(1);

      // Once it has received the chain, the old segment goes.
      receiver.setAnswer(() => 200);
      await sealer().sealNow();
      const head = Number((await t.dataSource.query(`SELECT seq FROM audit_chains WHERE chain = $1`, [org]))[0].seq);
      await waitFor(async () => {
        const res = await api().get(`/api/organizations/${org}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' });
        return res.body[0]?.lastDeliveredSeq >= head;
      }, 'the sink current');
      const expiry = (await t.app.get(AuditRetentionJob).runOnce()).get(org);
      expect(expiry).toEqual({ throughSeq: a, records: a });
      await sealer().sealNow();
      const left = await seqs(org);
      expect(left[0]).toBe(a + 1);
      expect(left).toEqual(Array.from({ length: left.length }, (_, i) => a + 1 + i));

      // The expiry is a record of the chain; the chain verifies from the kept checkpoint.
      const list = await api().get(`/api/organizations/${org}/audit-events?action=audit_records.removed`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(list.body.items).toHaveLength(1);
      expect(list.body.items[0].metadata).toEqual(expect.objectContaining({ throughSeq: a, records: a, retentionDays: 400 }));
      const verdict = await api().get(`/api/organizations/${org}/audit-events/verify`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(verdict.body).toEqual(expect.objectContaining({ intact: true, through: left[left.length - 1] }));
      expect(verdict.body.checkpoint.seq).toBeGreaterThanOrEqual(a);
      const exported = await api().get(`/api/organizations/${org}/audit-events/export`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      const first = JSON.parse(exported.text.split('\n')[0]) as { unmapped: { chain: { seq: number; prevHash: string } } };
      const [anchor] = await t.dataSource.query(`SELECT hash FROM audit_checkpoints WHERE chain = $1 AND seq = $2`, [org, a]);
      expect(first.unmapped.chain).toEqual(expect.objectContaining({ seq: a + 1, prevHash: anchor.hash }));
      const retention = await api().get(`/api/organizations/${org}/audit-retention`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
      expect(retention.body).toEqual({ retentionDays: null, defaultRetentionDays: 400, effectiveRetentionDays: 400, expiredThroughSeq: a });

      // The command line beside the running service (PostgreSQL: the embedded database has one process); the last request of the file.
      if (readTestState().kind === 'postgres') {
        const env = { NODE_ENV: 'test', DATABASE_URL: t.config.databaseUrl as string, SESSION_SECRET: t.config.sessionSecret, DATA_DIR: t.config.dataDir };
        const cli = await runCliCaptured(['audit-verify', '--organization', org], env);
        expect(cli.code).toBe(0);
        expect(JSON.parse(cli.stdout.slice(cli.stdout.indexOf('{')))).toEqual(expect.objectContaining({ intact: true }));
      }

      // The kept checkpoint is the anchor: removing it too is a break, not a shorter chain.
      await t.dataSource.query(`DELETE FROM audit_checkpoints WHERE chain = $1 AND seq = $2`, [org, a]);
      expect(await t.app.get(AuditChainService).verify(org)).toEqual(expect.objectContaining({ intact: false, firstBroken: a, reason: 'missing_record' }));
    } finally {
      await receiver.close();
    }
  });
});
