import type { Pool } from 'pg';
import { readStatement, statement } from '@app/database';
import { startTestApp, TestApp } from './helpers/test-app';
import { testDatabaseKind } from './helpers/test-state';

const onPostgres = testDatabaseKind() === 'postgres';
const ADD = statement('test.add', 'SELECT $1::int + $2::int AS sum');
const BROKEN = statement('test.broken', 'SELECT FROM no_such_table');

/**
 * The request path's named reads (`readStatement`): on PostgreSQL prepared once per pooled
 * connection, then only bound and executed; on the embedded database, whose one session every
 * connection shares, never prepared. `DATABASE_PREPARED_STATEMENTS=false` turns preparing off.
 */
describe('named statements', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  /** The statements prepared in the session of the connection the pool lends next (the one just given back). */
  async function preparedNames(app: TestApp): Promise<string[]> {
    const pool = (app.dataSource.driver as unknown as { master: Pool }).master;
    const client = await pool.connect();
    try {
      return (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements')).rows.map((r) => r.name);
    } finally {
      client.release();
    }
  }

  it(`answers the statement's rows${onPostgres ? ', prepared by name on the connection' : ', unprepared'}`, async () => {
    expect(await readStatement<{ sum: number }>(t.dataSource, ADD, [2, 3])).toEqual([{ sum: 5 }]);
    expect(await readStatement<{ sum: number }>(t.dataSource, ADD, [40, 2])).toEqual([{ sum: 42 }]);
    if (onPostgres) expect(await preparedNames(t)).toContain('test.add');
    else expect(await preparedNames(t)).not.toContain('test.add');
  });

  it('fails a broken statement with the database error and keeps serving', async () => {
    await expect(readStatement(t.dataSource, BROKEN, [])).rejects.toThrow(/no_such_table/);
    expect(await readStatement<{ sum: number }>(t.dataSource, ADD, [1, 1])).toEqual([{ sum: 2 }]);
  });

  it('refuses a second text under a name already given', () => {
    expect(() => statement('test.add', 'SELECT 1')).toThrow('statement test.add is declared twice');
  });

  (onPostgres ? it : it.skip)('prepares nothing with DATABASE_PREPARED_STATEMENTS=false', async () => {
    const unprepared = await startTestApp({ DATABASE_PREPARED_STATEMENTS: 'false' });
    try {
      expect(await readStatement<{ sum: number }>(unprepared.dataSource, ADD, [2, 2])).toEqual([{ sum: 4 }]);
      expect(await preparedNames(unprepared)).not.toContain('test.add');
    } finally {
      await unprepared.close();
    }
  });
});
