import { type FieldDef, type PoolClient, Query, types } from 'pg';

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
    const { names, parsers } = shape;
    const values = message.fields;
    const row: Record<string, unknown> = {};
    try {
      for (let i = 0; i < names.length; i++) {
        const value = values[i];
        row[names[i]!] = value === null ? null : parsers[i]!(value!);
      }
    } catch (error) {
      this._canceledDueToError = error;
      return;
    }
    this.collected.push(row);
  }
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
export function queryStatement<T>(client: PoolClient, statement: Statement, values: readonly unknown[], prepared: boolean): Promise<T[]> {
  return new Promise<T[]>((resolve, reject) => {
    client.query(
      new StatementQuery(statement, values as unknown[], prepared, (error, rows) => (error ? reject(error) : resolve(rows as T[]))) as never,
    );
  });
}
