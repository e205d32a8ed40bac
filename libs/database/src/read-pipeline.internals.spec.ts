import { Writable } from 'node:stream';
import { Client, type ClientConfig } from 'pg';
import { expectInternal } from '../../../test/helpers/framework-canary';

/**
 * Canaries: the parts of pg that `read-pipeline.ts` relies on beyond its documented API
 * (docs/architecture.md, "Framework internals relied on"). No database.
 */

class CountingSocket extends Writable {
  writes = 0;

  override _write(_chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.writes++;
    done();
  }

  override _writev(_chunks: unknown[], done: () => void): void {
    this.writes++;
    done();
  }
}

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('pg internals used by read-pipeline.ts', () => {
  it('pg Client takes pipeline: true', () =>
    expectInternal("pg Client's pipeline option (used by read-pipeline.ts)", () => {
      expect((new Client({ pipeline: true } as ClientConfig) as unknown as Loose).pipeline).toBe(true);
      expect((new Client({} as ClientConfig) as unknown as Loose).pipeline).toBe(false);
    }));

  it("pg Client#connection.stream is the connection's socket, with cork and uncork", () =>
    expectInternal('pg Client#connection.stream (cork/uncork; used by read-pipeline.ts ReadPipeline#holdWrites)', () => {
      const client = new Client({ pipeline: true } as ClientConfig) as unknown as Loose;
      expect(typeof client.connection?.stream?.cork).toBe('function');
      expect(typeof client.connection?.stream?.uncork).toBe('function');
      const socket = new CountingSocket();
      const onSocket = new Client({ stream: socket as never, pipeline: true } as ClientConfig) as unknown as Loose;
      expect(onSocket.connection.stream).toBe(socket);
    }));

  it("messages written while the connection's stream is corked leave in one write at uncork", () =>
    expectInternal('pg Connection writing through Client#connection.stream (used by read-pipeline.ts ReadPipeline#holdWrites)', async () => {
      const socket = new CountingSocket();
      const connection = (new Client({ stream: socket as never, pipeline: true } as ClientConfig) as unknown as Loose).connection;
      connection.stream.cork();
      connection.sync();
      connection.sync();
      connection.sync();
      expect(socket.writes).toBe(0);
      connection.stream.uncork();
      await new Promise((resolve) => setImmediate(resolve));
      expect(socket.writes).toBe(1);
    }));
});
