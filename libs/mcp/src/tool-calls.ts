import type { ServerResponse } from 'node:http';
import type { DomainError } from '@app/common';

/**
 * What the tool calls of one request came to, so that a database outage is answered as every
 * other outage answer is (HTTP 503 with `Retry-After`, docs/operations.md "Database outages")
 * rather than as a JSON-RPC error on HTTP 200. The request is answered 503 when a call found the
 * database unavailable and no call of the request ran (a single call, or a batch under an
 * outage); a batch in which some calls did run keeps its answer, so that no write that happened
 * is hidden from the client, with the failed calls' own JSON-RPC errors.
 */
export class ToolCalls {
  private completed = 0;
  private outage: DomainError | undefined;

  ran(): void {
    this.completed++;
  }

  failedUnavailable(error: DomainError): void {
    this.outage ??= error;
  }

  /** Throws the outage (answered 503 by the endpoint's JSON-RPC refusal) when no call of the request ran. */
  throwIfOutage(): void {
    if (this.outage && this.completed === 0) throw this.outage;
  }
}

/**
 * Holds what the SDK's Node adapter writes to `res` (its status and headers, then the stream of
 * answers) until `send`, so that the request can still be answered otherwise. `restore` puts the
 * response's own methods back; `send` then writes what was held, in one go.
 */
export function holdAnswer(res: ServerResponse): { restore(): void; send(): void } {
  let head: [number, Record<string, string>] | undefined;
  const chunks: (string | Uint8Array)[] = [];
  const names = ['writeHead', 'write', 'end'] as const;
  // The response's own methods where something wrapped them already, else the prototype's.
  const own = names.map((name) => (Object.prototype.hasOwnProperty.call(res, name) ? res[name] : undefined));
  res.writeHead = ((status: number, headers?: Record<string, string>) => {
    head = [status, headers ?? {}];
    return res;
  }) as typeof res.writeHead;
  res.write = ((chunk: string | Uint8Array) => {
    chunks.push(chunk);
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: string | Uint8Array | (() => void)) => {
    if (chunk !== undefined && typeof chunk !== 'function') chunks.push(chunk);
    return res;
  }) as typeof res.end;
  return {
    restore() {
      names.forEach((name, i) => {
        if (own[i]) Object.assign(res, { [name]: own[i] });
        else delete (res as Partial<Pick<ServerResponse, (typeof names)[number]>>)[name];
      });
    },
    send() {
      if (!head) return void res.end();
      const body = Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
      res.writeHead(head[0], { ...head[1], 'content-length': String(body.length) });
      res.end(body);
    },
  };
}
