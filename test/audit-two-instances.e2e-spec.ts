import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { AuditSealer, AuditService, BufferedRecords } from '@app/audit';
import { createAgentToken, createProject } from './factories';
import { createApiKey, createTeam } from './factories/rest';
import { startGatewayProcess } from './helpers/gateway-process';
import { freePort } from './helpers/postgres-server';
import { ClonedDatabase, cloneTemplateDatabase } from './helpers/template-database';
import { startTestApp, TestApp } from './helpers/test-app';
import { readTestState, testDatabaseKind } from './helpers/test-state';

/**
 * The audit chain across instances (SPEC §10): one sealer per organisation chain whatever the
 * number of instances, and nothing committed lost to a kill -9. PostgreSQL only (several
 * processes cannot share the embedded database).
 */
const onPostgres = testDatabaseKind() === 'postgres';

async function sealedChain(t: TestApp, chain: string): Promise<{ seq: number; action: string; target_id: string | null }[]> {
  for (;;) {
    const [{ open }] = await t.dataSource.query(`SELECT count(*)::int AS open FROM audit_events WHERE chain = $1 AND seq IS NULL`, [chain]);
    if (open === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const rows: { seq: string; action: string; target_id: string | null }[] = await t.dataSource.query(
    `SELECT seq, action, target_id FROM audit_events WHERE chain = $1 ORDER BY seq`,
    [chain],
  );
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

(onPostgres ? describe : describe.skip)('audit chain across instances (PostgreSQL)', () => {
  let database: ClonedDatabase | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    database = await cloneTemplateDatabase(postgres.port, 'auditchain');
    env = { DATABASE_URL: database.url, SESSION_SECRET: randomBytes(32).toString('hex') };
  });
  afterAll(() => database?.drop());

  it('two instances writing one organisation’s records at once: the chain is intact and gap-free', async () => {
    const a = await startTestApp(env);
    const b = await startTestApp(env);
    try {
      const team = await createTeam(a);
      const key = await createApiKey(a.dataSource, team.organization.id, ['projects:write', 'audit:read']);
      // Records through both instances at once: REST changes, and records written straight by each recorder.
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        const app = i % 2 === 0 ? a : b;
        writes.push(request(app.baseUrl).post(`/api/organizations/${team.organization.id}/projects`).auth(key.key, { type: 'bearer' }).send({ name: `P${i}` }).expect(201));
        writes.push(
          app.app.get(AuditService).record(app.dataSource.manager, { organizationId: team.organization.id, actorType: 'system', action: 'project.renamed', targetType: 'project', targetId: `r${i}`, metadata: {} }),
        );
      }
      await Promise.all(writes);
      const chain = await sealedChain(a, team.organization.id);
      expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      expect(chain.filter((r) => r.action === 'project.created')).toHaveLength(40);
      for (const app of [a, b]) {
        const verdict = (await request(app.baseUrl).get(`/api/organizations/${team.organization.id}/audit-events/verify`).auth(key.key, { type: 'bearer' }).expect(200)).body;
        expect(verdict).toEqual(expect.objectContaining({ intact: true, through: 80 }));
      }
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('reads batched by two instances at once: each instance writes its batches sealed, one instance at a time, and the chain verifies on both', async () => {
    const a = await startTestApp(env);
    const b = await startTestApp(env);
    try {
      const team = await createTeam(a);
      const key = await createApiKey(a.dataSource, team.organization.id, ['audit:read']);
      const credential = { tokenId: randomUUID(), serviceKeyId: randomUUID(), grantId: null, clientId: null, serviceKeyName: 'Key “é” 😀', origin: { ip: '203.0.113.9', userAgent: 'agent/1 ü' } };
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 40; i++) {
          const app = i % 2 === 0 ? a : b;
          app.app.get(BufferedRecords).recordRead({ organizationId: team.organization.id, projectId: randomUUID(), credential, tool: 'get_task', outcome: 'succeeded', args: { round, i } });
        }
        await Promise.all([a.app.get(BufferedRecords).flush(), b.app.get(BufferedRecords).flush()]);
      }
      const chain = await sealedChain(a, team.organization.id);
      expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      for (const app of [a, b]) {
        const verdict = (await request(app.baseUrl).get(`/api/organizations/${team.organization.id}/audit-events/verify`).auth(key.key, { type: 'bearer' }).expect(200)).body;
        expect(verdict).toEqual(expect.objectContaining({ intact: true, through: 200 }));
      }
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('a batch that finds its chain held longer than it waits is written unsealed, and sealed once the holder lets go', async () => {
    const a = await startTestApp(env);
    const holder = a.dataSource.createQueryRunner();
    try {
      const team = await createTeam(a);
      const chain = team.organization.id;
      const key = await createApiKey(a.dataSource, chain, ['audit:read']);
      await a.app.get(AuditSealer).sealNow();
      // Another transaction holds the head (as a long expiry would) for longer than a batch waits.
      await a.dataSource.query(`INSERT INTO audit_chains (chain) VALUES ($1) ON CONFLICT DO NOTHING`, [chain]);
      await holder.connect();
      await holder.startTransaction();
      expect(await holder.query(`SELECT 1 AS held FROM audit_chains WHERE chain = $1 FOR UPDATE`, [chain])).toEqual([{ held: 1 }]);
      const credential = { tokenId: randomUUID(), serviceKeyId: randomUUID(), grantId: null, clientId: null, serviceKeyName: 'Held key' };
      a.app.get(BufferedRecords).recordRead({ organizationId: chain, projectId: randomUUID(), credential, tool: 'get_task', outcome: 'succeeded', args: {} });
      await a.app.get(BufferedRecords).flush();
      const written = await a.dataSource.query(`SELECT seq FROM audit_events WHERE chain = $1 AND action = 'tool.called'`, [chain]);
      expect(written).toEqual([{ seq: null }]);
      await holder.commitTransaction();
      await a.app.get(AuditSealer).sealNow();
      const sealed = await sealedChain(a, chain);
      expect(sealed.at(-1)?.action).toBe('tool.called');
      const verdict = (await request(a.baseUrl).get(`/api/organizations/${chain}/audit-events/verify`).auth(key.key, { type: 'bearer' }).expect(200)).body;
      expect(verdict).toEqual(expect.objectContaining({ intact: true, through: sealed.length }));
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
      await a.close();
    }
  });

  it('kill -9 during a load of writes and reads: every committed write’s record is sealed after the restart', async () => {
    const setup = await startTestApp(env);
    const team = await createTeam(setup);
    const key = await createApiKey(setup.dataSource, team.organization.id, ['projects:write', 'audit:read']);
    const project = await createProject(setup.dataSource, team.organization.id);
    const agent = await createAgentToken(setup.dataSource, project);
    await setup.close();

    const gateway = await startGatewayProcess(await freePort(), env);
    const committed: string[] = [];
    let readsAnswered = 0;
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const res = await fetch(`${gateway.url}/api/organizations/${team.organization.id}/projects`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Load ${committed.length}` }),
        }).catch(() => undefined);
        if (res?.status === 201) committed.push(((await res.json()) as { id: string }).id);
      }
    };
    const reader = async () => {
      while (!stop) {
        const res = await fetch(`${gateway.url}/api/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${agent.token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-06-18',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_tasks', arguments: {} } }),
        }).catch(() => undefined);
        if (res?.status === 200) {
          await res.text();
          readsAnswered += 1;
        }
      }
    };
    const load = Promise.all([writer(), writer(), reader(), reader()]);
    // Kill it once the load is well under way.
    while (committed.length < 20 || readsAnswered < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    gateway.child.kill('SIGKILL');
    await new Promise((resolve) => gateway.child.once('exit', resolve));
    stop = true;
    await load;
    await gateway.stop();

    const restarted = await startTestApp(env);
    try {
      const chain = await sealedChain(restarted, team.organization.id);
      const sealedCreates = new Set(chain.filter((r) => r.action === 'project.created').map((r) => r.target_id));
      expect(committed.filter((id) => !sealedCreates.has(id))).toEqual([]);
      expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: chain.length }, (_, i) => i + 1));
      // Reads are batched (at most 200 ms or 500 records): those of the last moments may be lost, never invented.
      expect(chain.filter((r) => r.action === 'tool.called').length).toBeLessThanOrEqual(readsAnswered);
      const verdict = (await request(restarted.baseUrl).get(`/api/organizations/${team.organization.id}/audit-events/verify`).auth(key.key, { type: 'bearer' }).expect(200)).body;
      expect(verdict).toEqual(expect.objectContaining({ intact: true, through: chain.length }));
    } finally {
      await restarted.close();
    }
  });
});
