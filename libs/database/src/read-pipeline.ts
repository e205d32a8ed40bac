import { Client, type ClientConfig } from 'pg';
import { queryStatement, type Statement } from './statement-query';

/**
 * The request path's named statements (`readStatement`) on a few connections of their own, in
 * pg's pipeline mode: a statement is sent without waiting for the answers to those before it on
 * the connection, and without borrowing a connection from the pool.
 * A connection's writes are held until the event loop has handled the I/O at hand: the
 * statements of the requests that arrived together leave in one write, their answers come back
 * in shared reads, and PostgreSQL's backend runs them back to back instead of waking for each.
 *
 * Each statement still has its own sync, so it is its own implicit transaction: one that fails
 * fails alone, and one sent after a commit sees it. These are the short indexed statements every
 * request makes (the agent-token lookup, a task by id, a client by id, the rate-limit counters):
 * a long one would hold up those queued behind it on its connection, which is why nothing else
 * goes this way. A connection that breaks fails what was sent on it (the caller answers
 * "unavailable"); the next statement opens a new one.
 *
 * Bounds, so that one statement that does not answer (a lock wait, a server gone silent) cannot
 * hold up the request path:
 * - Each connection is opened with PostgreSQL's `statement_timeout` set to the bound: the server
 *   cancels a statement that runs (or waits for a lock) longer, that statement fails as
 *   "unavailable" (57014, see `database-unavailable.ts`) and the ones behind it on the connection
 *   go on; the connection stays as it was.
 * - A connection that gives no answer at all for `READ_PIPELINE_NO_ANSWER_MARGIN_MS` beyond the bound (the
 *   server or the network gone silent) is dropped: its oldest statement fails with a statement
 *   timeout, the others sent on it as the connection's end fails them, all "unavailable"; the next
 *   statement opens a new connection.
 * - A new statement goes to the connection with the fewest statements in flight, never to one
 *   with `maxQueued` in flight or whose oldest has waited `READ_PIPELINE_STALL_MS` (stuck behind a slow one):
 *   when no connection takes it, `query` answers `undefined` and the caller runs it on the pool.
 */
export class ReadPipeline {
  private readonly slots: Slot[];
  private next = 0;
  private closed = false;
  private readonly timeoutMs: number;
  private readonly maxQueued: number;
  /** The connections whose writes are held until `release` runs, each with its slot. */
  private readonly held: { stream: WritableStream; slot: Slot }[] = [];
  private readonly release = () => {
    const now = Date.now();
    for (const { stream, slot } of this.held.splice(0)) {
      stream.uncork();
      for (const entry of slot.unsent.splice(0)) entry.sentAt = now;
    }
  };

  constructor(
    private readonly config: ClientConfig,
    connections: number,
    bounds: ReadPipelineBounds,
  ) {
    this.timeoutMs = bounds.statementTimeoutMs;
    this.maxQueued = bounds.maxQueued;
    this.slots = Array.from({ length: connections }, () => ({ client: undefined, ready: undefined, inFlight: new Set<InFlight>(), unsent: [], watchdog: undefined }));
  }

  /**
   * The rows of `statement`, prepared by name on the connection it goes to (see `queryStatement`);
   * `undefined` when no connection takes it now (see `pickSlot`): the caller runs it elsewhere.
   */
  query<T>(statement: Statement, parameters: readonly unknown[]): Promise<T[]> | undefined {
    const now = Date.now();
    const index = pickSlot(this.slots, this.next, now, this.maxQueued);
    if (index === undefined) return undefined;
    this.next = (index + 1) % this.slots.length;
    const slot = this.slots[index]!;
    const entry: InFlight = { startedAt: now, sentAt: undefined, fail: undefined };
    slot.inFlight.add(entry);
    this.watch(slot);
    return new Promise<T[]>((resolve, reject) => {
      entry.fail = reject;
      const answered = (rows: T[]) => {
        slot.inFlight.delete(entry);
        resolve(rows);
      };
      const failed = (error: unknown) => {
        slot.inFlight.delete(entry);
        reject(error);
      };
      const send = (client: Client) => {
        this.holdWrites(client, slot);
        slot.unsent.push(entry);
        queryStatement<T>(client, statement, parameters, true).then(answered, failed);
      };
      if (slot.client) send(slot.client);
      else this.connect(slot).then(send, failed);
    });
  }

  /**
   * Arms the slot's one timer for its oldest statement's deadline (the bound plus the margin, from
   * when the statement left). When it fires with that statement still unanswered, the connection
   * has said nothing for that long: it is dropped (`drop`).
   *
   * Only the connection's silence counts, not the process's own: timers run before the event loop
   * reads the sockets that became readable meanwhile, so after a stretch of the process busy past
   * the deadline (a burst of requests, a starved CPU) the answer may be in the socket, unread. The
   * check therefore runs after that turn's reads (`setImmediate`), and a statement that left late
   * (its writes held while the process was busy) counts from when it left.
   */
  private watch(slot: Slot): void {
    if (slot.watchdog || this.closed) return;
    const oldest = first(slot.inFlight);
    if (!oldest) return;
    const limit = this.timeoutMs + READ_PIPELINE_NO_ANSWER_MARGIN_MS;
    const wait = Math.max(0, (oldest.sentAt ?? Date.now()) + limit - Date.now());
    slot.watchdog = setTimeout(() => {
      setImmediate(() => {
        slot.watchdog = undefined;
        if (this.closed) return;
        const head = first(slot.inFlight);
        if (head?.sentAt !== undefined && Date.now() - head.sentAt >= limit) this.drop(slot, head);
        this.watch(slot);
      });
    }, wait);
    slot.watchdog.unref();
  }

  /**
   * Fails `head` with a statement timeout and ends the slot's connection, which fails the
   * statements sent behind it ("connection terminated"); the next statement opens a new one.
   */
  private drop(slot: Slot, head: InFlight): void {
    slot.inFlight.delete(head);
    head.fail?.(new Error(`statement timeout: no answer from the database within ${this.timeoutMs + READ_PIPELINE_NO_ANSWER_MARGIN_MS} ms`));
    // Still being opened, it is bounded by the connection timeout instead.
    const client = slot.client;
    if (!client) return;
    slot.client = undefined;
    slot.ready = undefined;
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }

  /**
   * Holds the connection's writes until the event loop has handled the I/O at hand (the rest of
   * the requests that arrived together): their statements then leave in one write.
   */
  private holdWrites(client: Client, slot: Slot): void {
    const stream = (client as unknown as { connection: { stream: WritableStream } }).connection.stream;
    if (this.held.some((held) => held.stream === stream)) return;
    stream.cork();
    this.held.push({ stream, slot });
    if (this.held.length === 1) setImmediate(this.release);
  }

  /** Ends every connection, once the statements sent on it are answered. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.watchdog);
        slot.watchdog = undefined;
        const client = slot.client ?? (await slot.ready?.catch(() => undefined));
        slot.client = undefined;
        slot.ready = undefined;
        await client?.end().catch(() => undefined);
      }),
    );
  }

  /** The slot's connection, opened once however many statements wait for it. */
  private connect(slot: Slot): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('Connection terminated: the data source is closed'));
    if (!slot.ready) {
      const ready = this.open(slot);
      slot.ready = ready;
      // A connection that could not be opened is tried again by the next statement.
      ready.catch(() => {
        if (slot.ready === ready) slot.ready = undefined;
      });
    }
    return slot.ready;
  }

  private async open(slot: Slot): Promise<Client> {
    // The server cancels a statement that takes longer than the bound (a lock wait included).
    const client = new Client({ ...this.config, pipeline: true, statement_timeout: this.timeoutMs } as ClientConfig);
    // A break fails the statements sent on the connection (pg hands each the error); the
    // listener keeps it from ending the process, and the slot opens a new connection next time.
    const drop = () => {
      if (slot.client !== client) return;
      slot.client = undefined;
      slot.ready = undefined;
    };
    client.on('error', drop);
    client.on('end', drop);
    try {
      await client.connect();
    } catch (error) {
      client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error('Connection terminated: the data source is closed');
    }
    slot.client = client;
    return client;
  }
}

/** How long beyond the statement timeout a connection may stay silent before it is dropped. */
export const READ_PIPELINE_NO_ANSWER_MARGIN_MS = 1_000;

/** How long a connection's oldest statement may wait before new statements go elsewhere. */
export const READ_PIPELINE_STALL_MS = 250;

/** The read pipeline's bounds (`DATABASE_STATEMENT_TIMEOUT_MS`, `DATABASE_PIPELINE_MAX_QUEUED`). */
export interface ReadPipelineBounds {
  /** PostgreSQL's `statement_timeout` on the pipeline's connections, in ms. */
  statementTimeoutMs: number;
  /** Statements in flight on one connection beyond which new ones go elsewhere. */
  maxQueued: number;
}

/** What `pickSlot` needs to know of a connection. */
export interface SlotLoad {
  readonly inFlight: ReadonlySet<{ readonly startedAt: number }>;
}

/**
 * The connection a new statement goes to, from `start` on: the one with the fewest statements in
 * flight, of those with fewer than `maxQueued` and whose oldest has waited less than `READ_PIPELINE_STALL_MS`
 * (one stuck behind a slow statement would hold the new one up too); `undefined` when none is.
 */
export function pickSlot(slots: readonly SlotLoad[], start: number, now: number, maxQueued: number): number | undefined {
  let best: number | undefined;
  let fewest = maxQueued;
  for (let i = 0; i < slots.length; i++) {
    const index = (start + i) % slots.length;
    const inFlight = slots[index]!.inFlight;
    if (inFlight.size >= fewest) continue;
    const oldest = first(inFlight);
    if (oldest && now - oldest.startedAt >= READ_PIPELINE_STALL_MS) continue;
    best = index;
    fewest = inFlight.size;
    if (fewest === 0) break;
  }
  return best;
}

function first<T>(set: ReadonlySet<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}

interface WritableStream {
  cork(): void;
  uncork(): void;
}

interface InFlight {
  readonly startedAt: number;
  /** When its connection's held writes left (`release`); undefined until then. */
  sentAt: number | undefined;
  /** Fails the statement (its connection being dropped). */
  fail: ((error: Error) => void) | undefined;
}

interface Slot extends SlotLoad {
  client: Client | undefined;
  ready: Promise<Client> | undefined;
  readonly inFlight: Set<InFlight>;
  /** Statements written on the connection since the last `release`: they leave with it. */
  readonly unsent: InFlight[];
  watchdog: NodeJS.Timeout | undefined;
}
