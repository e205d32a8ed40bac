import { Socket } from 'node:net';
import type { Pool, PoolClient } from 'pg';
import { DatabaseUnavailableError, READ_PIPELINE_CONNECTIONS, readStatement, runAtomically, statement, statementIn } from '@app/database';
import { startTestApp, TestApp } from './helpers/test-app';
import { testDatabaseKind } from './helpers/test-state';

const onPostgres = testDatabaseKind() === 'postgres';
const ADD = statement('test.add', 'SELECT $1::int + $2::int AS sum');
const BROKEN = statement('test.broken', 'SELECT FROM no_such_table');
const WRITE = statement('test.write', 'INSERT INTO statement_probe (n) VALUES ($1) RETURNING n');
const BUMP = statement('test.bump', 'UPDATE statement_probe SET n = n + 100 WHERE n = $1 RETURNING n');

/**
 * The request path's named reads (`readStatement`): on PostgreSQL prepared once per pooled
 * connection, then only bound and executed; on the embedded database, whose one session every
 * connection shares, never prepared. `DATABASE_PREPARED_STATEMENTS=false` turns preparing off.
 */
describe('named statements', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await t.dataSource.query('CREATE TABLE statement_probe (n int NOT NULL)');
  });
  const probe = async (): Promise<number[]> => (await t.dataSource.query('SELECT n FROM statement_probe ORDER BY n')).map((r: { n: number }) => r.n);
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

  const PREPARED_HERE = statement('test.prepared_here', 'SELECT name FROM pg_prepared_statements');
  const BACKEND = statement('test.backend', 'SELECT pg_backend_pid() AS pid');

  /** The statements prepared in the sessions `readStatement` runs on (each connection of the read pipeline, in turn). */
  async function statementNames(app: TestApp): Promise<string[]> {
    const names = new Set<string>();
    for (let i = 0; i < READ_PIPELINE_CONNECTIONS; i++) {
      for (const row of await readStatement<{ name: string }>(app.dataSource, PREPARED_HERE, [])) names.add(row.name);
    }
    return [...names];
  }

  /** The server processes (one per connection) that `readStatement` ran `n` statements on. */
  async function readBackends(app: TestApp, n = 40): Promise<Set<number>> {
    const rows = await Promise.all(Array.from({ length: n }, () => readStatement<{ pid: number }>(app.dataSource, BACKEND, [])));
    return new Set(rows.map(([row]) => row!.pid));
  }

  it(`answers the statement's rows${onPostgres ? ', prepared by name on the connection' : ', unprepared'}`, async () => {
    expect(await readStatement<{ sum: number }>(t.dataSource, ADD, [2, 3])).toEqual([{ sum: 5 }]);
    expect(await readStatement<{ sum: number }>(t.dataSource, ADD, [40, 2])).toEqual([{ sum: 42 }]);
    if (onPostgres) expect(await statementNames(t)).toContain('test.add');
    else expect(await statementNames(t)).not.toContain('test.add');
  });

  describe('the read pipeline', () => {
    (onPostgres ? it : it.skip)(
      `runs every statement of concurrent requests on its ${READ_PIPELINE_CONNECTIONS} connections, none of the pool's, each answering its own`,
      async () => {
        const sums = await Promise.all(Array.from({ length: 300 }, (_, i) => readStatement<{ sum: number }>(t.dataSource, ADD, [i, 1000])));
        expect(sums.map(([row]) => row!.sum)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1000));
        const backends = await readBackends(t);
        expect(backends.size).toBe(READ_PIPELINE_CONNECTIONS);
        const pooled = await Promise.all(Array.from({ length: 5 }, () => t.dataSource.query('SELECT pg_backend_pid() AS pid')));
        for (const [row] of pooled) expect(backends.has(row.pid)).toBe(false);
      },
    );

    (onPostgres ? it : it.skip)('sends the statements asked for together in one write per connection', async () => {
      const backends = await readBackends(t); // both connections open
      // The pipeline's own sockets, by their local ports: the service's other connections (its
      // pool, which background work such as the audit sealer uses) may write meanwhile.
      const ports = new Set(
        ((await t.dataSource.query('SELECT client_port FROM pg_stat_activity WHERE pid = ANY($1::int[])', [[...backends]])) as { client_port: number }[]).map(
          (r) => r.client_port,
        ),
      );
      expect(ports.size).toBe(READ_PIPELINE_CONNECTIONS);
      const socket = Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
      let writes = 0;
      const count = (method: '_write' | '_writev') => {
        const original = socket[method]!;
        return jest.spyOn(socket, method).mockImplementation(function (this: Socket, ...args: unknown[]) {
          if (this.localPort !== undefined && ports.has(this.localPort)) writes++;
          return original.apply(this, args);
        });
      };
      const spies = [count('_write'), count('_writev')];
      try {
        const sums = await Promise.all(Array.from({ length: 50 }, (_, i) => readStatement<{ sum: number }>(t.dataSource, ADD, [i, 1])));
        expect(sums.map(([row]) => row!.sum)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      } finally {
        spies.forEach((spy) => spy.mockRestore());
      }
      expect(writes).toBeGreaterThan(0);
      expect(writes).toBeLessThanOrEqual(READ_PIPELINE_CONNECTIONS);
    });

    it('fails a broken statement alone among concurrent ones', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          (i % 4 === 0 ? readStatement(t.dataSource, BROKEN, []) : readStatement<{ sum: number }>(t.dataSource, ADD, [i, 1])).then(
            (rows) => rows,
            (error: Error) => error.message,
          ),
        ),
      );
      outcomes.forEach((outcome, i) => {
        if (i % 4 === 0) expect(outcome).toMatch(/no_such_table/);
        else expect(outcome).toEqual([{ sum: i + 1 }]);
      });
    });

    (onPostgres ? it : it.skip)('opens new connections when the server ends its own, failing only what was sent on them as unavailable', async () => {
      const before = await readBackends(t);
      await t.dataSource.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1)', [[...before]]);
      const failures: unknown[] = [];
      let answered = false;
      for (let attempt = 0; attempt < 50 && !answered; attempt++) {
        try {
          expect(await readStatement<{ sum: number }>(t.dataSource, ADD, [20, 22])).toEqual([{ sum: 42 }]);
          answered = true;
        } catch (error) {
          failures.push(error);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      expect(answered).toBe(true);
      for (const failure of failures) expect(failure).toBeInstanceOf(DatabaseUnavailableError);
      // Both connections replaced once each has been used again.
      const after = await readBackends(t);
      expect(after.size).toBe(READ_PIPELINE_CONNECTIONS);
      for (const pid of after) expect(before.has(pid)).toBe(false);
    });

    (onPostgres ? it : it.skip)('ends its connections with the application', async () => {
      const other = await startTestApp();
      let backends: Set<number>;
      try {
        backends = await readBackends(other);
      } finally {
        await other.close();
      }
      const left = await t.dataSource.query('SELECT pid FROM pg_stat_activity WHERE pid = ANY($1)', [[...backends]]);
      expect(left).toEqual([]);
    });
  });

  it('fails a broken statement with the database error and keeps serving', async () => {
    await expect(readStatement(t.dataSource, BROKEN, [])).rejects.toThrow(/no_such_table/);
    expect(await readStatement<{ sum: number }>(t.dataSource, ADD, [1, 1])).toEqual([{ sum: 2 }]);
  });

  it('refuses a second text under a name already given', () => {
    expect(() => statement('test.add', 'SELECT 1')).toThrow('statement test.add is declared twice');
  });

  describe('inside a transaction (statementIn)', () => {
    it(`runs on the transaction's own connection${onPostgres ? ', prepared by name' : ', unprepared'}, and its writes commit with it`, async () => {
      const prepared = await t.dataSource.transaction(async (em) => {
        expect(await statementIn<{ n: number }>(em, WRITE, [1])).toEqual([{ n: 1 }]);
        // The row is visible to the transaction's next query: the same connection.
        expect(await em.query('SELECT n FROM statement_probe WHERE n = 1')).toEqual([{ n: 1 }]);
        return (await em.query('SELECT name FROM pg_prepared_statements')).map((r: { name: string }) => r.name);
      });
      if (onPostgres) expect(prepared).toContain('test.write');
      else expect(prepared).not.toContain('test.write');
      expect(await probe()).toContain(1);
    });

    it(`outside a transaction, through the data source's own manager, runs as readStatement${onPostgres ? ' (prepared)' : ''}`, async () => {
      const MULTIPLY = statement('test.multiply', 'SELECT $1::int * $2::int AS product');
      expect(await statementIn<{ product: number }>(t.dataSource.manager, MULTIPLY, [6, 7])).toEqual([{ product: 42 }]);
      if (onPostgres) expect(await statementNames(t)).toContain('test.multiply');
      else expect(await statementNames(t)).not.toContain('test.multiply');
    });

    it('answers the RETURNING rows of an UPDATE, and none when nothing matched', async () => {
      await t.dataSource.transaction(async (em) => {
        await statementIn(em, WRITE, [7]);
        expect(await statementIn<{ n: number }>(em, BUMP, [7])).toEqual([{ n: 107 }]);
        expect(await statementIn(em, BUMP, [7])).toEqual([]);
      });
      expect(await probe()).toContain(107);
    });

    it('keeps nothing of a transaction that fails after the statement', async () => {
      await expect(
        t.dataSource.transaction(async (em) => {
          await statementIn(em, WRITE, [2]);
          throw new Error('later step failed');
        }),
      ).rejects.toThrow('later step failed');
      expect(await probe()).not.toContain(2);
    });

    it('fails a broken statement with the database error, rolls the transaction back and keeps serving', async () => {
      await expect(
        t.dataSource.transaction(async (em) => {
          await statementIn(em, WRITE, [3]);
          await statementIn(em, BROKEN, []);
        }),
      ).rejects.toThrow(/no_such_table/);
      expect(await probe()).not.toContain(3);
      await t.dataSource.transaction(async (em) => expect(await statementIn<{ sum: number }>(em, ADD, [20, 22])).toEqual([{ sum: 42 }]));
    });
  });

  describe('rows', () => {
    const MIXED = statement(
      'test.mixed',
      `SELECT $1::uuid AS id, $2::text AS name, ARRAY['tasks:read', 'tasks:write']::text[] AS permissions,
              '2026-11-26 06:00:00.123+00'::timestamptz AS at, NULL::timestamptz AS never, 9007199254740993::bigint AS big,
              '{"a":[1,2]}'::jsonb AS doc, true AS flag, 2.5::float8 AS ratio, $3::int AS n`,
    );
    const params = ['6f0a3c1e-2b4d-4e8f-9a1b-2c3d4e5f6a7b', 'probe', 7];

    it('come out as pg itself gives them, every type alike, execution after execution', async () => {
      const [expected] = await t.dataSource.query(MIXED.text, params);
      expect(expected.at).toBeInstanceOf(Date);
      for (let i = 0; i < 3; i++) {
        const rows = await readStatement<Record<string, unknown>>(t.dataSource, MIXED, params);
        expect(rows).toEqual([expected]);
        expect(Object.keys(rows[0]!)).toEqual(['id', 'name', 'permissions', 'at', 'never', 'big', 'doc', 'flag', 'ratio', 'n']);
        expect(rows[0]!.at).toBeInstanceOf(Date);
        expect((rows[0]!.at as Date).toISOString()).toBe('2026-11-26T06:00:00.123Z');
        expect(rows[0]!.big).toBe('9007199254740993');
      }
      const inTransaction = await t.dataSource.transaction((em) => statementIn<Record<string, unknown>>(em, MIXED, params));
      expect(inTransaction).toEqual([expected]);
    });

    it('answers every row of a statement, and none when nothing matches', async () => {
      const SERIES = statement('test.series', 'SELECT n, n * 2 AS twice FROM generate_series(1, $1::int) AS n');
      expect(await readStatement(t.dataSource, SERIES, [3])).toEqual([
        { n: 1, twice: 2 },
        { n: 2, twice: 4 },
        { n: 3, twice: 6 },
      ]);
      expect(await readStatement(t.dataSource, SERIES, [0])).toEqual([]);
    });

    it('follows a table whose columns change under a running service', async () => {
      // Unprepared (text `SELECT *`), so the description itself changes from one execution to the next.
      const unprepared = onPostgres ? await startTestApp({ DATABASE_PREPARED_STATEMENTS: 'false' }) : t;
      const db = unprepared.dataSource;
      try {
        await db.query('CREATE TABLE shape_probe (n int NOT NULL)');
        await db.query('INSERT INTO shape_probe (n) VALUES (1)');
        const ALL = statement('test.shape', 'SELECT * FROM shape_probe');
        expect(await readStatement(db, ALL, [])).toEqual([{ n: 1 }]);
        await db.query(`ALTER TABLE shape_probe ADD COLUMN label text NOT NULL DEFAULT 'x'`);
        expect(await readStatement(db, ALL, [])).toEqual([{ n: 1, label: 'x' }]);
        await db.query('ALTER TABLE shape_probe ALTER COLUMN n TYPE bigint');
        expect(await readStatement(db, ALL, [])).toEqual([{ n: '1', label: 'x' }]);
      } finally {
        if (unprepared !== t) await unprepared.close();
      }
    });

    it('fails a statement whose value cannot be read with that error, and the connection keeps serving', async () => {
      const BAD_CAST = statement('test.bad_cast', 'SELECT $1::int AS n');
      await expect(readStatement(t.dataSource, BAD_CAST, ['not a number'])).rejects.toThrow(/invalid input syntax for type integer/);
      expect(await readStatement(t.dataSource, BAD_CAST, ['12'])).toEqual([{ n: 12 }]);
    });
  });

  describe('atomic writes (runAtomically)', () => {
    const ADD_ROW = statement('test.atomic.add', 'INSERT INTO statement_probe (n) VALUES ($1) RETURNING n, txid_current()::text AS tx');
    const ADD_ROWS = statement(
      'test.atomic.add_two',
      'INSERT INTO statement_probe (n) VALUES ($1), ($2) RETURNING n, txid_current()::text AS tx',
    );
    const MUST_BE_POSITIVE = statement('test.atomic.positive', 'INSERT INTO statement_probe (n) SELECT $1::int WHERE 1 / sign($1::int) > 0 RETURNING n');
    const added = (n: number) => ({ statement: ADD_ROW, parameters: [n] });

    /** The exchanges (a ready-for-query each) the database answered on the pool's connections while `work` ran. */
    async function exchangesDuring(app: TestApp, work: () => Promise<unknown>): Promise<number> {
      const clients = (app.dataSource.driver as unknown as { master: Pool & { _clients: PoolClient[] } }).master._clients;
      let count = 0;
      const counted = () => count++;
      const connections = clients.map((client) => (client as unknown as { connection: NodeJS.EventEmitter }).connection);
      connections.forEach((connection) => connection.on('readyForQuery', counted));
      try {
        await work();
      } finally {
        connections.forEach((connection) => connection.removeListener('readyForQuery', counted));
      }
      return count;
    }

    it(`writes every step in one transaction and answers each one's rows, in order${onPostgres ? ', in one exchange' : ''}`, async () => {
      await readStatement(t.dataSource, ADD, [0, 0]); // a pooled connection to watch
      let results: Record<string, unknown>[][] = [];
      const exchanges = await exchangesDuring(t, async () => {
        results = await runAtomically(t.dataSource, [added(401), { statement: ADD_ROWS, parameters: [402, 403] }]);
      });
      expect(results.map((rows) => rows.map((row) => row.n))).toEqual([[401], [402, 403]]);
      const transactions = new Set(results.flat().map((row) => row.tx));
      expect(transactions.size).toBe(1);
      // One exchange on PostgreSQL; on the embedded database, BEGIN, the two statements and COMMIT.
      expect(exchanges).toBe(onPostgres ? 1 : 4);
      expect(await probe()).toEqual(expect.arrayContaining([401, 402, 403]));
      if (onPostgres) expect(await preparedNames(t)).toEqual(expect.arrayContaining(['test.atomic.add', 'test.atomic.add_two']));
    });

    it('keeps nothing of the earlier steps when a later one fails, and the connection keeps serving', async () => {
      await expect(runAtomically(t.dataSource, [added(411), { statement: MUST_BE_POSITIVE, parameters: [0] }])).rejects.toThrow(/division by zero/);
      // A statement the server cannot parse, after one it can.
      await expect(runAtomically(t.dataSource, [added(412), { statement: BROKEN, parameters: [] }])).rejects.toThrow(/no_such_table/);
      // A statement the server cannot parse first, that one parsed for the first time after it.
      const LATE = statement('test.atomic.late', 'INSERT INTO statement_probe (n) VALUES ($1) RETURNING n');
      await expect(runAtomically(t.dataSource, [{ statement: BROKEN, parameters: [] }, { statement: LATE, parameters: [413] }])).rejects.toThrow(
        /no_such_table/,
      );
      expect((await probe()).filter((n) => n >= 411 && n <= 413)).toEqual([]);
      // The same statements again, after the failures: each parsed once per connection, whichever failed.
      for (let round = 0; round < 3; round++) {
        const [first, second] = await runAtomically(t.dataSource, [added(420 + round), { statement: MUST_BE_POSITIVE, parameters: [430 + round] }]);
        expect([first, second]).toEqual([[expect.objectContaining({ n: 420 + round })], [{ n: 430 + round }]]);
        expect(await runAtomically(t.dataSource, [{ statement: LATE, parameters: [440 + round] }])).toEqual([[{ n: 440 + round }]]);
      }
      expect(await readStatement<{ sum: number }>(t.dataSource, ADD, [1, 2])).toEqual([{ sum: 3 }]);
    });

    it('refuses a value it cannot send before writing anything', async () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const JSON_ROW = statement('test.atomic.json', 'SELECT $1::jsonb AS doc');
      await expect(runAtomically(t.dataSource, [added(450), { statement: JSON_ROW, parameters: [circular] }])).rejects.toThrow(/circular/i);
      expect(await probe()).not.toContain(450);
      expect(await runAtomically(t.dataSource, [added(451), { statement: JSON_ROW, parameters: [{ a: [1, 2] }] }])).toEqual([
        [expect.objectContaining({ n: 451 })],
        [{ doc: { a: [1, 2] } }],
      ]);
    });

    it('writes all of each of many concurrent atomic writes, and none of the failed ones', async () => {
      const writes = Array.from({ length: 60 }, (_, i) => {
        const n = 1000 + i * 2;
        // Every third one fails in its second step.
        const second = i % 3 === 0 ? { statement: MUST_BE_POSITIVE, parameters: [0] } : added(n + 1);
        return runAtomically(t.dataSource, [added(n), second]).then(
          () => 'ok',
          () => 'failed',
        );
      });
      const outcomes = await Promise.all(writes);
      expect(outcomes.filter((o) => o === 'failed')).toHaveLength(20);
      const rows = (await probe()).filter((n) => n >= 1000 && n < 1200);
      const expected = outcomes.flatMap((o, i) => (o === 'ok' ? [1000 + i * 2, 1001 + i * 2] : []));
      expect(rows).toEqual(expected);
    });
  });

  (onPostgres ? it : it.skip)('prepares nothing with DATABASE_PREPARED_STATEMENTS=false', async () => {
    const unprepared = await startTestApp({ DATABASE_PREPARED_STATEMENTS: 'false' });
    try {
      expect(await readStatement<{ sum: number }>(unprepared.dataSource, ADD, [2, 2])).toEqual([{ sum: 4 }]);
      expect(await preparedNames(unprepared)).not.toContain('test.add');
      const inTransaction = await unprepared.dataSource.transaction(async (em) => {
        expect(await statementIn<{ sum: number }>(em, ADD, [3, 4])).toEqual([{ sum: 7 }]);
        return (await em.query('SELECT name FROM pg_prepared_statements')).map((r: { name: string }) => r.name);
      });
      expect(inTransaction).not.toContain('test.add');
      const CHECKED_SUM = statement('test.unprepared.sum', 'SELECT $1::int + $2::int AS sum');
      expect(await runAtomically(unprepared.dataSource, [{ statement: CHECKED_SUM, parameters: [1, 2] }, { statement: ADD, parameters: [3, 4] }])).toEqual([
        [{ sum: 3 }],
        [{ sum: 7 }],
      ]);
      expect(await preparedNames(unprepared)).not.toEqual(expect.arrayContaining(['test.unprepared.sum']));
    } finally {
      await unprepared.close();
    }
  });
});
