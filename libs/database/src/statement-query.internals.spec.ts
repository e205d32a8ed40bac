import { Writable } from 'node:stream';
import * as pg from 'pg';
import { Client, Query } from 'pg';
import { expectInternal } from '../../../test/helpers/framework-canary';
import { queryAtomically, queryStatement } from './statement-query';

/**
 * Canaries: the parts of pg that `statement-query.ts` relies on beyond its documented API
 * (docs/architecture.md, "Framework internals relied on"). No database: a client on a socket
 * that only records what is written, driven by the messages a server would send.
 */

/** Stands in for a connection's socket: keeps what is written, as separate writes or one corked write. */
class RecordingSocket extends Writable {
  readonly chunks: Buffer[] = [];
  writes = 0;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.writes++;
    this.chunks.push(chunk);
    done();
  }

  override _writev(chunks: { chunk: Buffer }[], done: () => void): void {
    this.writes++;
    for (const { chunk } of chunks) this.chunks.push(chunk);
    done();
  }

  /** The codes of the frontend messages written ('P' parse, 'B' bind, 'D' describe, 'E' execute, 'S' sync). */
  codes(): string {
    const all = Buffer.concat(this.chunks);
    let codes = '';
    for (let at = 0; at < all.length; at += 1 + all.readInt32BE(at + 1)) codes += String.fromCharCode(all[at]!);
    return codes;
  }
}

/** What the code reads and calls on pg's objects, typed loosely: these are the internals under test. */
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const STATEMENT = { name: 'canary_lookup', text: 'SELECT $1::int AS n, $2::text AS label' };
const INT4 = 23;
const TEXT = 25;
const FIELDS = [
  { name: 'n', dataTypeID: INT4, format: 'text' },
  { name: 'label', dataTypeID: TEXT, format: 'text' },
];

/** A client on a recording socket, and the query object `client.query` is handed. */
function recordingClient(options: { pipeline?: boolean } = {}) {
  const socket = new RecordingSocket();
  const client = new Client({ stream: socket as never, pipeline: options.pipeline } as pg.ClientConfig);
  const handed: Loose[] = [];
  const query = client.query.bind(client) as (q: unknown) => unknown;
  (client as Loose).query = (q: Loose) => {
    handed.push(q);
    return query(q);
  };
  return { client, socket, handed, connection: (client as Loose).connection as Loose };
}

describe('pg internals used by statement-query.ts', () => {
  it('pg Query can be subclassed: a constructor taking the text, with name, values and callback read by submit', () =>
    expectInternal('pg Query (constructor, name/values/callback fields; used by statement-query.ts StatementQuery)', () => {
      expect(typeof Query).toBe('function');
      const q = new (Query as unknown as new (text: string) => Loose)('SELECT 1');
      expect(q.text).toBe('SELECT 1');
      expect(q._result).toBeDefined();
      expect(q._canceledDueToError).toBe(false);
      for (const method of ['submit', 'handleRowDescription', 'handleDataRow', 'handleCommandComplete', 'handleReadyForQuery', 'handleError']) {
        expect([method, typeof q[method]]).toEqual([method, 'function']);
      }
    }));

  it("pg Client#query takes a query object (a 'submit' method) as it is and gives it the client's type parsers in _result._types", () =>
    expectInternal("pg Client#query with a submittable query, and Query#_result._types (used by statement-query.ts)", async () => {
      const { client, handed } = recordingClient();
      void queryStatement(client, STATEMENT, [1, 'a'], true);
      expect(handed).toHaveLength(1);
      expect(handed[0]).toBeInstanceOf(Query);
      expect(typeof handed[0]!._result._types?.getTypeParser).toBe('function');
      expect(handed[0]!._result._types.getTypeParser(INT4, 'text')('7')).toBe(7);
    }));

  it('a pipelined pg Client accepts a subclass of Query (custom submittables are refused in pipeline mode)', () =>
    expectInternal('pg Client pipeline mode accepting a Query subclass (used by read-pipeline.ts through statement-query.ts)', async () => {
      const { client } = recordingClient({ pipeline: true });
      let settled: unknown = 'pending';
      queryStatement(client, STATEMENT, [1, 'a'], true).then(
        () => (settled = 'resolved'),
        (error: Error) => (settled = error.message),
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe('pending');
    }));

  it('pg Query#submit writes parse, bind, describe, execute and sync in one write and records the name in connection.submittedNamedStatements', () =>
    expectInternal('pg Query#submit and Connection#parsedStatements/submittedNamedStatements (used by statement-query.ts StatementQuery#submit)', () => {
      const { client, socket, handed, connection } = recordingClient();
      void queryStatement(client, STATEMENT, [1, 'a'], true);
      expect(connection.parsedStatements).toEqual({});
      expect(connection.submittedNamedStatements).toEqual({});
      expect(handed[0]!.submit(connection)).toBeNull();
      expect(socket.codes()).toBe('PBDES');
      expect(socket.writes).toBe(1);
      expect(connection.submittedNamedStatements[STATEMENT.name]).toBe(STATEMENT.text);
    }));

  it('pg Query hands its rows through handleRowDescription/handleDataRow and answers its callback at handleReadyForQuery', () =>
    expectInternal('pg Query#handleRowDescription/#handleDataRow/#handleReadyForQuery message flow (used by statement-query.ts)', async () => {
      const { client, handed, connection } = recordingClient();
      const rows = queryStatement<{ n: number; label: string }>(client, STATEMENT, [7, 'seven'], true);
      const q = handed[0]!;
      q.submit(connection);
      q.handleRowDescription({ fields: FIELDS });
      q.handleDataRow({ fields: ['7', 'seven'] });
      q.handleDataRow({ fields: ['8', null] });
      q.handleCommandComplete({ text: 'SELECT 2' }, connection);
      q.handleReadyForQuery(connection);
      await expect(rows).resolves.toEqual([
        { n: 7, label: 'seven' },
        { n: 8, label: null },
      ]);
    }));

  it('pg Query#_canceledDueToError turns the answer at handleReadyForQuery into that error', () =>
    expectInternal('pg Query#_canceledDueToError (used by statement-query.ts StatementQuery#handleDataRow)', async () => {
      const { client, handed, connection } = recordingClient();
      const rows = queryStatement(client, STATEMENT, [1, 'a'], true);
      const q = handed[0]!;
      q.submit(connection);
      q.handleRowDescription({ fields: FIELDS });
      q._canceledDueToError = new Error('a row could not be read');
      q.handleReadyForQuery(connection);
      await expect(rows).rejects.toThrow('a row could not be read');
    }));

  it('pg Connection#parse/bind/describe/execute/sync, its stream cork/uncork and its parseComplete event serve an atomic write', () =>
    expectInternal('pg Connection message methods, Connection#stream.cork/uncork and the parseComplete event (used by statement-query.ts AtomicQuery)', async () => {
      const { client, socket, handed, connection } = recordingClient();
      for (const method of ['parse', 'bind', 'describe', 'execute', 'sync', 'sendCopyFail', 'on', 'removeListener', 'emit']) {
        expect([method, typeof connection[method]]).toEqual([method, 'function']);
      }
      const other = { name: 'canary_other', text: 'SELECT 1 AS one' };
      const results = queryAtomically(client, [
        { statement: STATEMENT, parameters: [1, 'a'] },
        { statement: other, parameters: [] },
      ], true);
      const q = handed[0]!;
      expect(q.submit(connection)).toBeNull();
      expect(socket.codes()).toBe('PBDEPBDES');
      expect(socket.writes).toBe(1);
      connection.emit('parseComplete');
      connection.emit('parseComplete');
      expect(connection.parsedStatements).toEqual({ [STATEMENT.name]: STATEMENT.text, [other.name]: other.text });
      q.handleRowDescription({ fields: FIELDS });
      q.handleDataRow({ fields: ['1', 'a'] });
      q.handleCommandComplete({ text: 'SELECT 1' });
      q.handleRowDescription({ fields: [{ name: 'one', dataTypeID: INT4, format: 'text' }] });
      q.handleDataRow({ fields: ['1'] });
      q.handleCommandComplete({ text: 'SELECT 1' });
      q.handleReadyForQuery(connection);
      await expect(results).resolves.toEqual([[{ n: 1, label: 'a' }], [{ one: 1 }]]);
    }));

  it("pg's utils.prepareValue maps a value as a query's bind does", () =>
    expectInternal('pg utils.prepareValue (used by statement-query.ts AtomicQuery)', () => {
      const prepareValue = (pg as unknown as Loose).utils?.prepareValue as (value: unknown) => unknown;
      expect(typeof prepareValue).toBe('function');
      expect(prepareValue(null)).toBeNull();
      expect(prepareValue(5)).toBe('5');
      expect(prepareValue({ a: 1 })).toBe('{"a":1}');
      expect(prepareValue(['x', 'y'])).toBe('{"x","y"}');
      expect(typeof prepareValue(new Date(0))).toBe('string');
    }));
});
