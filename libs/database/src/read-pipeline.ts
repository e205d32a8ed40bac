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
 */
export class ReadPipeline {
  private readonly slots: Slot[];
  private next = 0;
  private closed = false;
  /** The connections whose writes are held until `release` runs. */
  private readonly held: WritableStream[] = [];
  private readonly release = () => {
    for (const stream of this.held.splice(0)) stream.uncork();
  };

  constructor(
    private readonly config: ClientConfig,
    connections: number,
  ) {
    this.slots = Array.from({ length: connections }, () => ({ client: undefined, ready: undefined }));
  }

  /** The rows of `statement`, prepared by name on the connection it goes to (see `queryStatement`). */
  async query<T>(statement: Statement, parameters: readonly unknown[]): Promise<T[]> {
    const slot = this.slots[this.next]!;
    this.next = (this.next + 1) % this.slots.length;
    const client = slot.client ?? (await this.connect(slot));
    this.holdWrites(client);
    return queryStatement<T>(client, statement, parameters, true);
  }

  /**
   * Holds the connection's writes until the event loop has handled the I/O at hand (the rest of
   * the requests that arrived together): their statements then leave in one write.
   */
  private holdWrites(client: Client): void {
    const stream = (client as unknown as { connection: { stream: WritableStream } }).connection.stream;
    if (this.held.includes(stream)) return;
    stream.cork();
    this.held.push(stream);
    if (this.held.length === 1) setImmediate(this.release);
  }

  /** Ends every connection, once the statements sent on it are answered. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(async (slot) => {
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
    const client = new Client({ ...this.config, pipeline: true } as ClientConfig);
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

interface WritableStream {
  cork(): void;
  uncork(): void;
}

interface Slot {
  client: Client | undefined;
  ready: Promise<Client> | undefined;
}
