import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A stand-in for a SIEM's intake on http://127.0.0.1 (reached under OUTBOUND_ALLOW_LOOPBACK):
 * keeps every request it accepts; `answer` decides each status (default 200), so a test can make
 * it refuse for a while, or answer 413 to large bodies.
 */
export async function startSinkReceiver(answer: (req: ReceivedRequest) => number = () => 200, options: { answerAfterMs?: number } = {}) {
  const accepted: ReceivedRequest[] = [];
  let refused = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const state = { answer };
  const server: Server = createServer((req, res) => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const status = state.answer(received);
      if (status >= 200 && status < 300) accepted.push(received);
      else refused += 1;
      setTimeout(() => {
        inFlight -= 1;
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      }, options.answerAfterMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted,
    refusedCount: () => refused,
    /** The most requests it was answering at once. */
    mostInFlight: () => mostInFlight,
    setAnswer(next: (req: ReceivedRequest) => number) {
      state.answer = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The NDJSON lines of every accepted body, in the order they arrived. */
export function receivedLines(accepted: ReceivedRequest[]): Record<string, unknown>[] {
  return accepted.flatMap((r) => r.body.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>));
}

/** The `seq` of an export line (a checkpoint: the record it covers). */
export function lineSeq(line: Record<string, unknown>): number {
  if ('checkpoint' in line) return (line.checkpoint as { seq: number }).seq;
  return ((line.unmapped as { chain: { seq: number } }).chain).seq;
}

export async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
