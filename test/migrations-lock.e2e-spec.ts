import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { MIGRATIONS } from '@app/database';
import { GatewayProcess, startGatewayProcess } from './helpers/gateway-process';
import { freePort } from './helpers/postgres-server';
import { readTestState, testDatabaseKind } from './helpers/test-state';

/**
 * Three instances started at once on one empty PostgreSQL database: the migrations run under an
 * advisory lock, so one instance applies them, the others wait and find nothing to do, and all
 * three come up. (The embedded database has one owner process: see data-folder-lock.e2e-spec.)
 */
(testDatabaseKind() === 'postgres' ? describe : describe.skip)('migrations with several instances starting at once', () => {
  const instances: GatewayProcess[] = [];
  let adminUrl: string;
  let name: string;

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    const c = new Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });

  it('all three come up; every migration is applied once', async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    adminUrl = `postgres://postgres@127.0.0.1:${postgres.port}/postgres`;
    name = `mig_${randomUUID().replace(/-/g, '')}`;
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const databaseUrl = `postgres://postgres@127.0.0.1:${postgres.port}/${name}`;
    const env = { DATABASE_URL: databaseUrl, SESSION_SECRET: randomBytes(32).toString('hex') };
    const ports = [await freePort(), await freePort(), await freePort()];
    const started = await Promise.allSettled(ports.map((port) => startGatewayProcess(port, env)));
    for (const s of started) if (s.status === 'fulfilled') instances.push(s.value);
    expect(started.map((s) => (s.status === 'fulfilled' ? 'ready' : String(s.reason)))).toEqual(['ready', 'ready', 'ready']);

    const c = new Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      const { rows } = await c.query<{ name: string; n: string }>('SELECT name, count(*) AS n FROM migrations GROUP BY name');
      const byName = (a: [string, number], b: [string, number]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
      expect(rows.map((r): [string, number] => [r.name, Number(r.n)]).sort(byName)).toEqual(
        MIGRATIONS.map((m): [string, number] => [m.name, 1]).sort(byName),
      );
    } finally {
      await c.end();
    }
    for (const i of instances) expect((await fetch(`${i.url}/health/ready`)).status).toBe(200);
  }, 180_000);
});
