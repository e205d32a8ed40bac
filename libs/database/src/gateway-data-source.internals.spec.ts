import { EventEmitter } from 'node:events';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { expectInternal } from '../../../test/helpers/framework-canary';

/**
 * Canaries: the parts of TypeORM and pg-pool that `gateway-data-source.ts` (and the pool gauges
 * of `libs/observability/src/metrics.ts`) rely on beyond their documented API
 * (docs/architecture.md, "Framework internals relied on"). No database: the driver's pool is
 * replaced by a stand-in before it connects.
 */

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A data source whose driver "connects" to `pool` without a database. */
async function connectedTo(pool: object): Promise<DataSource> {
  const dataSource = new DataSource({ type: 'postgres', host: '127.0.0.1', port: 1, username: 'u', database: 'd' });
  const driver = dataSource.driver as unknown as Loose;
  // What the driver would otherwise ask the server once connected.
  driver.version = '15.0';
  driver.database = 'd';
  driver.searchSchema = 'public';
  driver.createPool = async () => pool;
  await driver.connect();
  return dataSource;
}

describe('TypeORM and pg-pool internals used by gateway-data-source.ts', () => {
  it("TypeORM PostgresDriver#master is the pg pool the driver made at connect (PostgresDriver#createPool)", () =>
    expectInternal('TypeORM PostgresDriver#master (used by gateway-data-source.ts and metrics.ts)', async () => {
      const fresh = new DataSource({ type: 'postgres' }).driver as unknown as Loose;
      expect(fresh.master).toBeUndefined();
      expect(typeof fresh.createPool).toBe('function');
      const pool = { totalCount: 0 };
      const dataSource = await connectedTo(pool);
      expect((dataSource.driver as unknown as Loose).master).toBe(pool);
    }));

  it('pg Pool#options keeps the connection settings the pool was made with', () =>
    expectInternal('pg-pool Pool#options (used by gateway-data-source.ts to open the read pipeline)', async () => {
      const pool = new Pool({ host: 'db.example', port: 6543, user: 'gw', password: 'not-a-secret', database: 'gateway', ssl: false });
      const options = (pool as unknown as Loose).options;
      expect(options).toMatchObject({ host: 'db.example', port: 6543, user: 'gw', password: 'not-a-secret', database: 'gateway', ssl: false });
      expect([pool.totalCount, pool.idleCount, pool.waitingCount]).toEqual([0, 0, 0]);
      await pool.end();
    }));

  it("TypeORM's query runner: query and connect replaceable per instance, connect answering the pool's pg client", () =>
    expectInternal('TypeORM PostgresQueryRunner#connect resolving to the pg client (used by gateway-data-source.ts runStatement)', async () => {
      const pgClient = new EventEmitter();
      const pool = { connect: (done: (error: unknown, client: unknown, release: () => void) => void) => done(undefined, pgClient, () => undefined) };
      const dataSource = await connectedTo(pool);
      const runner = dataSource.createQueryRunner();
      expect(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(runner), 'query')?.writable ?? true).toBe(true);
      const connect = runner.connect.bind(runner);
      runner.connect = () => connect();
      await expect(runner.connect()).resolves.toBe(pgClient);
      expect(typeof runner.isTransactionActive).toBe('boolean');
    }));
});
