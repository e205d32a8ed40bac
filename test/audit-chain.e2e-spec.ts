import { createPublicKey, randomUUID, verify } from 'node:crypto';
import request from 'supertest';
import canonicalize from 'canonicalize';
import { AuditSealer, AuditService, BufferedRecords, chainHash } from '@app/audit';
import { createApiKey, createTeam } from './factories/rest';
import { runCliCaptured } from './helpers/cli';
import { startTestApp, TestApp } from './helpers/test-app';
import { readTestState } from './helpers/test-state';

/**
 * The audit chain (SPEC §10 "Audit as evidence"): records sealed in order after they commit,
 * exported as NDJSON with checkpoint lines, verified; tampering named at its first broken record.
 */
describe('audit chain: sealing, export, verify, tampering', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  const api = () => request(t.baseUrl);

  /** Writes `n` records into the organisation's chain, each in its own transaction. */
  async function write(organizationId: string, n: number) {
    const audit = t.app.get(AuditService);
    for (let i = 0; i < n; i++) {
      await audit.record(t.dataSource.manager, {
        organizationId,
        actorType: 'user',
        actorId: '00000000-0000-4000-8000-000000000001',
        action: 'project.renamed',
        targetType: 'project',
        targetId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        metadata: { name: `Project ${i}` },
      });
    }
  }

  /** Waits until the organisation's records are all sealed (the sealer runs within a second of each commit). */
  async function sealed(organizationId: string): Promise<{ id: string; seq: string; hash: string }[]> {
    for (;;) {
      const [{ open }] = await t.dataSource.query(`SELECT count(*)::int AS open FROM audit_events WHERE chain = $1 AND seq IS NULL`, [organizationId]);
      if (open === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return t.dataSource.query(`SELECT id, seq, hash FROM audit_events WHERE chain = $1 ORDER BY seq`, [organizationId]);
  }

  function exportLines(text: string): Record<string, any>[] {
    return text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  }

  const verifyOf = async (orgId: string, jwt: string) => (await api().get(`/api/organizations/${orgId}/audit-events/verify`).auth(jwt, { type: 'bearer' }).expect(200)).body;

  it('seals each record after it commits, seq 1, 2, … linked by SHA-256 of the canonical event', async () => {
    const team = await createTeam(t);
    await write(team.organization.id, 5);
    const rows = await sealed(team.organization.id);
    expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3, 4, 5]);
    const res = await api().get(`/api/organizations/${team.organization.id}/audit-events/export`).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = exportLines(res.text).filter((l) => !l.checkpoint);
    expect(lines.map((l) => l.unmapped.chain.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(lines[0].unmapped.chain.prevHash).toBe('0'.repeat(64));
    for (const [i, line] of lines.entries()) {
      if (i > 0) expect(line.unmapped.chain.prevHash).toBe(lines[i - 1].unmapped.chain.hash);
      // The hash by hand: the exported line without unmapped.chain.hash, RFC 8785, SHA-256.
      const { hash, ...link } = line.unmapped.chain;
      const text = canonicalize({ ...line, unmapped: { ...line.unmapped, chain: link } }) as string;
      expect(require('node:crypto').createHash('sha256').update(text).digest('hex')).toBe(hash);
      expect(line.metadata).toEqual(expect.objectContaining({ version: '1.8.0', event_code: 'project.renamed', tenant_uid: team.organization.id }));
      expect(line.class_uid).toBe(3004);
    }
    // The export itself is the sixth record.
    await sealed(team.organization.id);
    expect(await verifyOf(team.organization.id, team.admin.jwt)).toEqual(expect.objectContaining({ intact: true, through: 6 }));
  });

  it('signs checkpoints (Ed25519) that the export carries as lines of their own and verify lists the key of', async () => {
    const team = await createTeam(t);
    await write(team.organization.id, 3);
    await sealed(team.organization.id);
    await t.app.get(AuditSealer).sealChain(team.organization.id, true);
    const lines = exportLines((await api().get(`/api/organizations/${team.organization.id}/audit-events/export`).auth(team.admin.jwt, { type: 'bearer' }).expect(200)).text);
    const checkpointAt = lines.findIndex((l) => l.checkpoint);
    expect(checkpointAt).toBe(3);
    const { checkpoint } = lines[3];
    expect(checkpoint).toEqual({ seq: 3, hash: lines[2].unmapped.chain.hash, keyId: expect.stringMatching(/^[0-9a-f]{16}$/), signature: expect.any(String), time: expect.any(Number) });
    // The export is the fourth record, sealed after the checkpoint.
    await sealed(team.organization.id);
    const verdict = await verifyOf(team.organization.id, team.admin.jwt);
    expect(verdict).toEqual(expect.objectContaining({ intact: true, through: 4, checkpoint }));
    const key = verdict.keys.find((k: { keyId: string }) => k.keyId === checkpoint.keyId);
    // The signature by hand: RFC 8785 JSON of {chain, seq, hash, time}, Ed25519 with the listed public key.
    const message = Buffer.from(canonicalize({ chain: team.organization.id, seq: 3, hash: checkpoint.hash, time: checkpoint.time }) as string);
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKey }, format: 'jwk' });
    expect(verify(null, message, publicKey, Buffer.from(checkpoint.signature, 'base64url'))).toBe(true);
  });

  it('seals rows written before events existed first, building their events from their columns', async () => {
    const team = await createTeam(t);
    await t.dataSource.query(
      `INSERT INTO audit_events (organization_id, chain, actor_type, actor_id, action, target_type, target_id, created_at)
       VALUES ($1::uuid, $1::uuid::text, 'user', 'old-actor', 'member.added', 'user', 'old-member', now() - interval '1 day')`,
      [team.organization.id],
    );
    await write(team.organization.id, 1);
    const rows = await sealed(team.organization.id);
    expect(rows).toHaveLength(2);
    const [first] = await t.dataSource.query(`SELECT action, event FROM audit_events WHERE chain = $1 AND seq = 1`, [team.organization.id]);
    expect(first.action).toBe('member.added');
    expect(first.event).toEqual(expect.objectContaining({ class_uid: 3005, user: { uid: 'old-member', type_id: 1, type: 'User' } }));
    expect((await verifyOf(team.organization.id, team.admin.jwt)).intact).toBe(true);
  });

  it('seals batched reads with the events this instance wrote: each hash is that of the event as stored, and the chain verifies', async () => {
    const team = await createTeam(t);
    const reads = t.app.get(BufferedRecords);
    const credentials = [
      { tokenId: randomUUID(), serviceKeyId: randomUUID(), grantId: null, clientId: null, serviceKeyName: 'Build key “ci” — é 😀', origin: { ip: '::ffff:203.0.113.9', userAgent: 'agent/1.0 (ü; "quoted")' } },
      { tokenId: randomUUID(), serviceKeyId: null, grantId: randomUUID(), clientId: 'client-ß', userId: randomUUID(), userEmail: 'zoe@example.com' },
    ];
    for (let i = 0; i < 30; i++) {
      reads.recordRead({
        organizationId: team.organization.id,
        projectId: randomUUID(),
        credential: credentials[i % 2],
        tool: i % 3 === 0 ? 'list_tasks' : 'get_task',
        outcome: i % 5 === 0 ? 'not_found' : 'succeeded',
        args: { id: i, ratio: i / 7, text: 'line\nbreak \u2028 😀' },
      });
    }
    await reads.flush();
    await sealed(team.organization.id);
    const chain: { seq: string; prev_hash: string; hash: string; event: Record<string, unknown> }[] = await t.dataSource.query(
      `SELECT seq, prev_hash, hash, event FROM audit_events WHERE chain = $1 AND action = 'tool.called' ORDER BY seq`,
      [team.organization.id],
    );
    expect(chain).toHaveLength(30);
    for (const row of chain) expect(row.hash).toBe(chainHash(row.event, Number(row.seq), row.prev_hash));
    expect(await verifyOf(team.organization.id, team.admin.jwt)).toEqual(expect.objectContaining({ intact: true }));
  });

  describe('tampering: verify names the first broken record', () => {
    async function chainOf(n: number, checkpointAt?: number) {
      const team = await createTeam(t);
      await write(team.organization.id, checkpointAt ?? n);
      await sealed(team.organization.id);
      if (checkpointAt) {
        await t.app.get(AuditSealer).sealChain(team.organization.id, true);
        await write(team.organization.id, n - checkpointAt);
      }
      const rows = await sealed(team.organization.id);
      return { team, rows };
    }

    it('an edited event', async () => {
      const { team, rows } = await chainOf(6);
      await t.dataSource.query(`UPDATE audit_events SET event = jsonb_set(event, '{entity,name}', '"forged"') WHERE id = $1`, [rows[3].id]);
      expect(await verifyOf(team.organization.id, team.admin.jwt)).toEqual(
        expect.objectContaining({ intact: false, firstBroken: 4, recordId: rows[3].id, reason: 'hash_mismatch', through: 3 }),
      );
    });

    it('a deleted record', async () => {
      const { team, rows } = await chainOf(6);
      await t.dataSource.query(`DELETE FROM audit_events WHERE id = $1`, [rows[2].id]);
      expect(await verifyOf(team.organization.id, team.admin.jwt)).toEqual(
        expect.objectContaining({ intact: false, firstBroken: 3, recordId: null, reason: 'missing_record', through: 2 }),
      );
    });

    it('two records swapped', async () => {
      const { team, rows } = await chainOf(6);
      await t.dataSource.query(`UPDATE audit_events SET seq = -seq WHERE id IN ($1, $2)`, [rows[1].id, rows[4].id]);
      await t.dataSource.query(`UPDATE audit_events SET seq = CASE WHEN id = $1 THEN 5 ELSE 2 END WHERE id IN ($1, $2)`, [rows[1].id, rows[4].id]);
      expect(await verifyOf(team.organization.id, team.admin.jwt)).toEqual(
        expect.objectContaining({ intact: false, firstBroken: 2, recordId: rows[4].id, reason: 'prev_hash_mismatch', through: 1 }),
      );
    });

    it('an edited record with every later hash recomputed: broken at the checkpoint, intact through the one before', async () => {
      const { team } = await chainOf(8, 3);
      await t.app.get(AuditSealer).sealChain(team.organization.id, true);
      const rows: { id: string; seq: string; prev_hash: string; event: Record<string, unknown> }[] = await t.dataSource.query(
        `SELECT id, seq, prev_hash, event FROM audit_events WHERE chain = $1 ORDER BY seq`,
        [team.organization.id],
      );
      // Someone with the database edits record 5 and rewrites every hash from there on.
      let prev = rows[3] && (await t.dataSource.query(`SELECT hash FROM audit_events WHERE id = $1`, [rows[3].id]))[0].hash;
      for (const row of rows.slice(4)) {
        const event = row.seq === '5' ? { ...row.event, entity: { ...(row.event.entity as object), name: 'forged' } } : row.event;
        const hash = chainHash(event, Number(row.seq), prev);
        await t.dataSource.query(`UPDATE audit_events SET event = $2::jsonb, prev_hash = $3, hash = $4 WHERE id = $1`, [row.id, JSON.stringify(event), prev, hash]);
        prev = hash;
      }
      const verdict = await verifyOf(team.organization.id, team.admin.jwt);
      expect(verdict).toEqual(expect.objectContaining({ intact: false, firstBroken: 8, reason: 'checkpoint_mismatch', through: 3 }));
      expect(verdict.checkpoint).toEqual(expect.objectContaining({ seq: 3 }));
    });
  });

  it('exports a range or what follows a seq, audits each export, and refuses a bad range naming it', async () => {
    const team = await createTeam(t);
    await write(team.organization.id, 4);
    await sealed(team.organization.id);
    const after = exportLines(
      (await api().get(`/api/organizations/${team.organization.id}/audit-events/export`).query({ afterSeq: 2 }).auth(team.admin.jwt, { type: 'bearer' }).expect(200)).text,
    );
    expect(after.filter((l) => !l.checkpoint).map((l) => l.unmapped.chain.seq)).toEqual([3, 4]);
    const future = new Date(Date.now() + 3600_000).toISOString();
    const none = await api().get(`/api/organizations/${team.organization.id}/audit-events/export`).query({ from: future }).auth(team.admin.jwt, { type: 'bearer' }).expect(200);
    expect(none.text).toBe('');
    const exports = await t.dataSource.query(`SELECT actor_id, metadata FROM audit_events WHERE organization_id = $1 AND action = 'audit.exported' ORDER BY created_at`, [
      team.organization.id,
    ]);
    expect(exports).toEqual([
      { actor_id: team.admin.id, metadata: { format: 'ocsf', afterSeq: 2 } },
      { actor_id: team.admin.id, metadata: { format: 'ocsf', from: future } },
    ]);
    const bad = await api().get(`/api/organizations/${team.organization.id}/audit-events/export`).query({ from: 'yesterday' }).auth(team.admin.jwt, { type: 'bearer' }).expect(400);
    expect(bad.body.message).toEqual(expect.arrayContaining(['from must be an ISO 8601 time']));
    const both = await api().get(`/api/organizations/${team.organization.id}/audit-events/export`).query({ afterSeq: 1, from: future }).auth(team.admin.jwt, { type: 'bearer' }).expect(400);
    expect(both.body.message).toBe('give either afterSeq or from/to, not both');
  });

  it('lets admins and audit:read keys export and verify; members and other keys are refused', async () => {
    const team = await createTeam(t);
    const reader = await createApiKey(t.dataSource, team.organization.id, ['audit:read']);
    const other = await createApiKey(t.dataSource, team.organization.id, ['projects:read']);
    for (const route of ['export', 'verify']) {
      await api().get(`/api/organizations/${team.organization.id}/audit-events/${route}`).auth(reader.key, { type: 'bearer' }).expect(200);
      await api().get(`/api/organizations/${team.organization.id}/audit-events/${route}`).auth(team.member.jwt, { type: 'bearer' }).expect(403);
      await api().get(`/api/organizations/${team.organization.id}/audit-events/${route}`).auth(team.outsider.jwt, { type: 'bearer' }).expect(404);
      await api().get(`/api/organizations/${team.organization.id}/audit-events/${route}`).auth(other.key, { type: 'bearer' }).expect(403);
    }
  });
});

describe('audit-verify (command line)', () => {
  it('needs exactly one of --organization and --service', async () => {
    for (const args of [[], ['--organization', '00000000-0000-4000-8000-000000000000', '--service']]) {
      const out = await runCliCaptured(['audit-verify', ...args], { NODE_ENV: 'test' });
      expect(out.code).toBe(2);
      expect(out.stderr).toContain('audit-verify needs --organization <organization id> or --service (one of them).');
    }
    const bad = await runCliCaptured(['audit-verify', '--organization', 'acme'], { NODE_ENV: 'test' });
    expect(bad).toEqual(expect.objectContaining({ code: 2, stderr: '--organization must be an organization id (a UUID), not "acme".\n' }));
  });

  (readTestState().kind === 'postgres' ? it : it.skip)('verifies an organisation chain beside the running service, and names a broken one (PostgreSQL)', async () => {
    const t = await startTestApp();
    try {
      const team = await createTeam(t);
      const audit = t.app.get(AuditService);
      for (let i = 0; i < 3; i++) {
        await audit.record(t.dataSource.manager, { organizationId: team.organization.id, actorType: 'cli', action: 'project.renamed', targetType: 'project', targetId: `p${i}`, metadata: {} });
      }
      await t.app.get(AuditSealer).sealNow();
      const env = { NODE_ENV: 'test', DATABASE_URL: t.config.databaseUrl as string, SESSION_SECRET: t.config.sessionSecret, DATA_DIR: t.config.dataDir };
      const intact = await runCliCaptured(['audit-verify', '--organization', team.organization.id], env);
      expect(intact.code).toBe(0);
      expect(JSON.parse(intact.stdout.slice(intact.stdout.indexOf('{')))).toEqual(expect.objectContaining({ chain: team.organization.id, intact: true, through: 3 }));
      await t.dataSource.query(`UPDATE audit_events SET event = jsonb_set(event, '{time}', '0') WHERE chain = $1 AND seq = 2`, [team.organization.id]);
      const broken = await runCliCaptured(['audit-verify', '--organization', team.organization.id], env);
      expect(broken.code).toBe(1);
      expect(JSON.parse(broken.stdout.slice(broken.stdout.indexOf('{')))).toEqual(expect.objectContaining({ intact: false, firstBroken: 2, reason: 'hash_mismatch' }));
    } finally {
      await t.close();
    }
  });
});
