import { createServer, type Server, type Socket } from 'node:net';
import { isDatabaseUnavailable } from './database-unavailable';
import { READ_PIPELINE_NO_ANSWER_MARGIN_MS, pickSlot, ReadPipeline, READ_PIPELINE_STALL_MS } from './read-pipeline';

const busy = (...startedAt: number[]) => ({ inFlight: new Set(startedAt.map((t) => ({ startedAt: t }))) });

describe('the read pipeline: which connection a statement goes to (pickSlot)', () => {
  const now = 10_000;

  it('takes the connection with the fewest statements in flight, the first from the start on a tie', () => {
    expect(pickSlot([busy(now, now), busy(now)], 0, now, 100)).toBe(1);
    expect(pickSlot([busy(now), busy(now)], 1, now, 100)).toBe(1);
    expect(pickSlot([busy(), busy()], 0, now, 100)).toBe(0);
  });

  it('passes over a connection whose oldest statement has waited the stall time, however few it holds', () => {
    expect(pickSlot([busy(now - READ_PIPELINE_STALL_MS), busy(now, now, now)], 0, now, 100)).toBe(1);
    expect(pickSlot([busy(now - READ_PIPELINE_STALL_MS + 1), busy(now, now)], 0, now, 100)).toBe(0);
  });

  it('answers none (the pool then) when every connection is full or stalled', () => {
    expect(pickSlot([busy(now, now), busy(now, now)], 0, now, 2)).toBeUndefined();
    expect(pickSlot([busy(now, now), busy(now - READ_PIPELINE_STALL_MS)], 0, now, 2)).toBeUndefined();
    expect(pickSlot([busy(now, now), busy(now)], 0, now, 2)).toBe(1);
  });
});

/**
 * A server that speaks just enough of PostgreSQL's protocol to let a client connect (trust
 * authentication, ready for query), then never answers a statement: a database gone silent.
 */
async function silentServer(): Promise<{ server: Server; port: number; startups: Record<string, string>[]; sockets: Socket[] }> {
  const startups: Record<string, string>[] = [];
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    let started = false;
    socket.on('error', () => undefined);
    socket.on('data', (data) => {
      if (started) return; // statements: no answer, ever
      started = true;
      // The startup message: length, protocol version, then name\0value\0 pairs and a final \0.
      const fields = data.subarray(8, data.readInt32BE(0)).toString('utf8').split('\0');
      const params: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length && fields[i]; i += 2) params[fields[i]!] = fields[i + 1]!;
      startups.push(params);
      const authOk = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]);
      const ready = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
      socket.write(Buffer.concat([authOk, ready]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, startups, sockets };
}

describe('the read pipeline: a database that does not answer', () => {
  const STATEMENT = { name: 'test.silent', text: 'SELECT 1' };

  it('asks PostgreSQL to cancel at the statement timeout, and drops a connection silent beyond it: its statements fail as unavailable, the next opens a new one', async () => {
    const { server, port, startups, sockets } = await silentServer();
    const pipeline = new ReadPipeline({ host: '127.0.0.1', port, user: 'u', database: 'd' }, 1, { statementTimeoutMs: 100, maxQueued: 10 });
    try {
      const first = pipeline.query(STATEMENT, [])!;
      const second = pipeline.query(STATEMENT, [])!;
      const outcomes = await Promise.all([first, second].map((p) => p.then(() => undefined, (error: Error) => error)));
      expect(outcomes[0]?.message).toBe(`statement timeout: no answer from the database within ${100 + READ_PIPELINE_NO_ANSWER_MARGIN_MS} ms`);
      for (const outcome of outcomes) expect(isDatabaseUnavailable(outcome)).toBe(true);
      expect(startups).toEqual([expect.objectContaining({ statement_timeout: '100' })]);
      // The server hears the dropped connection's end at its next read (the drop is decided after
      // the client's reads of that turn of the event loop): waited for, with a bound.
      const server0 = sockets[0]!;
      if (!server0.destroyed && !server0.readableEnded) {
        await new Promise((resolve) => {
          server0.once('end', resolve).once('close', resolve);
          setTimeout(resolve, 2_000).unref();
        });
      }
      expect(server0.destroyed || server0.readableEnded).toBe(true);

      // The next statement is taken (nothing in flight any more) on a new connection.
      const third = pipeline.query(STATEMENT, []);
      expect(third).toBeDefined();
      await expect(third).rejects.toThrow(/statement timeout/);
      expect(startups).toHaveLength(2);
    } finally {
      await pipeline.close();
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('gives a statement to no connection once each holds its cap in flight', async () => {
    const { server, port, sockets } = await silentServer();
    const pipeline = new ReadPipeline({ host: '127.0.0.1', port, user: 'u', database: 'd' }, 2, { statementTimeoutMs: 100, maxQueued: 2 });
    try {
      const taken = Array.from({ length: 4 }, () => pipeline.query(STATEMENT, []));
      expect(taken.every((p) => p !== undefined)).toBe(true);
      expect(pipeline.query(STATEMENT, [])).toBeUndefined();
      await Promise.all(taken.map((p) => p!.catch(() => undefined)));
    } finally {
      await pipeline.close();
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
