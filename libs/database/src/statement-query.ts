import * as pg from 'pg';
import { type ClientBase, type FieldDef, Query, types } from 'pg';

/**
 * A read the request path runs all the time (the agent token lookup, a task by id), written
 * once with a name. On PostgreSQL it is prepared by name once per pooled connection and then
 * only bound and executed: the server parses and plans it once instead of on every request
 * (measured on this machine: the database's CPU for the token lookup and the task read fell from
 * about 150 to about 40 µs per pair). The embedded database serves one session to every
 * connection, so there it runs unprepared, as any other query.
 * Declared with `statement()` (`statement.ts`).
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** A column's text parser, as pg keeps them. */
type Parser = (value: string) => unknown;

/** What a statement's rows look like, learned from the first description the server sends. */
interface RowShape {
  readonly names: readonly string[];
  readonly typeIds: readonly number[];
  readonly parsers: readonly Parser[];
  readonly types: TypeSource;
}

interface TypeSource {
  getTypeParser(oid: number, format?: 'text' | 'binary'): Parser;
}

/** pg's query, with the parts of it this one replaces. */
interface QueryInternals {
  name?: string;
  values?: unknown[];
  callback?: (error: Error | null | undefined, result?: unknown) => void;
  _canceledDueToError?: unknown;
  _result: { _types?: TypeSource };
  handleRowDescription(message: { fields: FieldDef[] }): void;
  handleDataRow(message: { fields: (string | null)[] }): void;
  submit(connection: unknown): Error | null;
}

const PgQuery = Query as unknown as new (text: string) => QueryInternals;

/** Per statement name, the shape of its rows, so the parsers are looked up once and not per execution. */
const shapes = new Map<string, RowShape>();

/**
 * One execution of a named statement, handed to `client.query` as pg's own query is. It is pg's
 * extended-query exchange unchanged (parse once per connection when prepared, then bind,
 * describe, execute, sync, corked into one write); what differs is around it: no copy of a
 * query config, no extra promise, and the rows built from the statement's shape, kept from its
 * first execution, instead of building the parsers and an empty row again from every row
 * description. A description that does not match the kept shape (a column renamed or retyped
 * under a running service) replaces it; a binary column goes pg's own way.
 */
class StatementQuery extends PgQuery {
  // Names of their own: pg's query uses `rows` (rows per execution) and others for itself.
  private rowShape: RowShape | undefined;
  private readonly collected: Record<string, unknown>[] = [];

  constructor(
    private readonly source: Statement,
    values: unknown[],
    prepared: boolean,
    done: (error: Error | null | undefined, rows?: Record<string, unknown>[]) => void,
  ) {
    super(source.text);
    if (prepared) this.name = source.name;
    this.values = values;
    this.callback = (error, result) => (error ? done(error) : done(undefined, this.rowShape ? this.collected : (result as { rows: Record<string, unknown>[] }).rows));
  }

  /**
   * On a pipelined connection a statement can be sent while the parse of its name is still on
   * its way: bound to that name it would fail with the parse ("prepared statement does not
   * exist") instead of on its own. Until the server has confirmed the parse, it goes unnamed.
   */
  override submit(connection: { parsedStatements: Record<string, string>; submittedNamedStatements: Record<string, string> }): Error | null {
    const name = this.name;
    if (name !== undefined && connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] !== undefined) {
      this.name = undefined;
    }
    return super.submit(connection);
  }

  override handleRowDescription(message: { fields: FieldDef[] }): void {
    const typeSource = this._result._types ?? types;
    const shape = shapeFor(this.source.name, message.fields, typeSource);
    if (shape) this.rowShape = shape;
    else super.handleRowDescription(message);
  }

  override handleDataRow(message: { fields: (string | null)[] }): void {
    const shape = this.rowShape;
    if (!shape) return super.handleDataRow(message);
    if (this._canceledDueToError) return;
    try {
      this.collected.push(rowOf(shape, message.fields));
    } catch (error) {
      this._canceledDueToError = error;
    }
  }
}

/** One row as an object keyed by column, each value read by its column's parser. */
function rowOf(shape: RowShape, values: readonly (string | null)[]): Record<string, unknown> {
  const { names, parsers } = shape;
  const row: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) {
    const value = values[i];
    row[names[i]!] = value === null ? null : parsers[i]!(value!);
  }
  return row;
}

function shapeFor(name: string, fields: readonly FieldDef[], typeSource: TypeSource): RowShape | undefined {
  const kept = shapes.get(name);
  if (kept && kept.types === typeSource && matches(kept, fields)) return kept;
  if (fields.some((field) => field.format === 'binary')) return undefined;
  const shape: RowShape = {
    names: fields.map((field) => field.name),
    typeIds: fields.map((field) => field.dataTypeID),
    parsers: fields.map((field) => typeSource.getTypeParser(field.dataTypeID, 'text')),
    types: typeSource,
  };
  shapes.set(name, shape);
  return shape;
}

function matches(shape: RowShape, fields: readonly FieldDef[]): boolean {
  if (shape.names.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.name !== shape.names[i] || field.dataTypeID !== shape.typeIds[i]) return false;
  }
  return true;
}

/** The rows of `statement` run on `client` (prepared by name when `prepared`), as objects keyed by column. */
export function queryStatement<T>(client: ClientBase, statement: Statement, values: readonly unknown[], prepared: boolean): Promise<T[]> {
  return new Promise<T[]>((resolve, reject) => {
    client.query(
      new StatementQuery(statement, values as unknown[], prepared, (error, rows) => (error ? reject(error) : resolve(rows as T[]))) as never,
    );
  });
}

/** A statement and the values to bind to it: one step of an atomic write (`queryAtomically`). */
export interface BoundStatement {
  readonly statement: Statement;
  readonly parameters: readonly unknown[];
}

/** What a pg client hands its active query: the connection's messages it sends. */
interface WireConnection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { cork?(): void; uncork?(): void };
  parse(message: { text: string; name: string }): void;
  bind(message: { statement: string; values: unknown[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message?: object): void;
  sync(): void;
  sendCopyFail(reason: string): void;
  on(event: 'parseComplete', listener: () => void): void;
  removeListener(event: 'parseComplete', listener: () => void): void;
}

/** pg's own value mapping (a Date, an array, an object as JSON…), as a query's bind applies it. */
const prepareValue = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils.prepareValue;

/**
 * Several statements in one exchange with the server: for each, parse (once per connection when
 * prepared), bind, describe and execute, then a single sync, written at once. PostgreSQL runs
 * everything before a sync as one implicit transaction: it commits at the sync when every
 * statement succeeded; at the first failure it skips the rest and rolls all of it back. So the
 * steps apply together or not at all, in one round trip instead of a transaction's four
 * (`BEGIN`, the statements, `COMMIT`). It is handed to `client.query` like pg's own query and
 * answers each step's rows, in order.
 */
class AtomicQuery {
  /** pg's client records a parse under its active query's name: this one has none and records its own. */
  readonly name = undefined;
  readonly text = undefined;
  /** Where the client puts its type parsers (`client.query` fills `_types` in, as for its own queries). */
  readonly _result: { _types?: TypeSource } = {};
  callback: ((error: Error | null | undefined) => void) | undefined;
  private readonly values: unknown[][];
  private readonly results: Record<string, unknown>[][];
  private step = 0;
  private shape: RowShape | undefined;
  private failure: unknown;
  private settled = false;
  /** Names this exchange parses, in order, until the server confirms each. */
  private readonly parsing: string[] = [];
  private connection: WireConnection | undefined;
  private readonly parsed = () => {
    const name = this.parsing.shift();
    if (name !== undefined && this.connection) {
      this.connection.parsedStatements[name] = this.connection.submittedNamedStatements[name]!;
      delete this.connection.submittedNamedStatements[name];
    }
  };

  constructor(
    private readonly steps: readonly BoundStatement[],
    private readonly prepared: boolean,
    private readonly done: (error: unknown, results?: Record<string, unknown>[][]) => void,
  ) {
    this.results = steps.map(() => []);
    // Mapped before anything is written: a value that cannot be sent must fail the whole, not leave a sync after half.
    this.values = steps.map((step) => step.parameters.map((value) => prepareValue(value)));
    this.callback = (error) => this.finish(error ?? new Error('the query was cancelled'));
  }

  submit(connection: WireConnection): Error | null {
    this.connection = connection;
    // Checked before anything is written: corked messages would still go out, and the next sync would commit them.
    for (const { statement } of this.steps) {
      const known = this.prepared ? (connection.parsedStatements[statement.name] ?? connection.submittedNamedStatements[statement.name]) : undefined;
      if (known !== undefined && known !== statement.text) {
        return new Error(`Prepared statements must be unique - '${statement.name}' was used for a different statement`);
      }
    }
    connection.stream.cork?.();
    try {
      this.steps.forEach(({ statement }, i) => {
        const name = this.prepared ? statement.name : '';
        if (name === '' || (connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] === undefined)) {
          connection.parse({ text: statement.text, name });
          if (name !== '') {
            connection.submittedNamedStatements[name] = statement.text;
            this.parsing.push(name);
          }
        }
        connection.bind({ statement: name, values: this.values[i]! });
        connection.describe({ type: 'P', name: '' });
        connection.execute();
      });
      if (this.parsing.length > 0) connection.on('parseComplete', this.parsed);
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: FieldDef[] }): void {
    const statement = this.steps[this.step]?.statement;
    if (!statement) return;
    const shape = shapeFor(statement.name, message.fields, this._result._types ?? types);
    if (shape) this.shape = shape;
    else this.failure ??= new Error(`${statement.name} answered a binary column`);
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    if (this.failure || !this.shape) return;
    try {
      this.results[this.step]!.push(rowOf(this.shape, message.fields));
    } catch (error) {
      this.failure = error;
    }
  }

  handleCommandComplete(): void {
    this.step++;
    this.shape = undefined;
  }

  handleEmptyQuery(): void {
    this.handleCommandComplete();
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: WireConnection): void {
    connection.sendCopyFail('No source stream defined');
  }

  handleCopyData(): void {}

  handleError(error: Error): void {
    this.stopListening();
    // The names whose parse was not confirmed are not on the connection.
    for (const name of this.parsing) if (this.connection) delete this.connection.submittedNamedStatements[name];
    this.parsing.length = 0;
    this.finish(this.failure ?? error);
  }

  handleReadyForQuery(): void {
    this.stopListening();
    if (this.failure) this.finish(this.failure);
    else this.finish(undefined, this.results);
  }

  private stopListening(): void {
    this.connection?.removeListener('parseComplete', this.parsed);
  }

  private finish(error: unknown, results?: Record<string, unknown>[][]): void {
    if (this.settled) return;
    this.settled = true;
    if (error === undefined) this.done(undefined, results);
    else this.done(error);
  }
}

/**
 * Runs `steps` on `client` as one implicit transaction in one round trip (`AtomicQuery`):
 * all of them apply or none. The rows of each step, in order.
 */
export function queryAtomically(client: ClientBase, steps: readonly BoundStatement[], prepared: boolean): Promise<Record<string, unknown>[][]> {
  return new Promise((resolve, reject) => {
    client.query(new AtomicQuery(steps, prepared, (error, results) => (error === undefined ? resolve(results!) : reject(error))) as never);
  });
}
