import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError, type ErrorKind, HTTP_STATUS_OF_KIND, retryAfterOf } from '@app/common';
import { echoableId, type JsonRpcId, MCP_SERVER_ERROR, jsonRpcError } from './json-rpc';

/** What a refusal of the MCP transport may add to its kind. */
export interface McpRefusalOptions {
  id?: JsonRpcId;
  data?: unknown;
  /** Answered as the HTTP status of this kind unless `status` says otherwise (405, 415). */
  status?: 405 | 415;
  headers?: Readonly<Record<string, string>>;
}

/**
 * A request the MCP endpoint refuses at the HTTP level, before the SDK sees it (wrong media type,
 * unsupported protocol version, missing permission, over a request limit, wrong method).
 * Answered by `JsonRpcErrorFilter` as a JSON-RPC error body. An expected answer, never logged
 * with a stack, so none is captured (a client over its limit is refused cheaply).
 */
export class McpRefusal extends Error {
  readonly kind: ErrorKind;
  readonly rpcCode: number;
  readonly options: McpRefusalOptions;

  constructor(kind: ErrorKind, rpcCode: number, message: string, options: McpRefusalOptions = {}) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'McpRefusal';
    this.kind = kind;
    this.rpcCode = rpcCode;
    this.options = options;
  }
}

/**
 * The JSON-RPC transport's filter: a refusal's status, its headers, a JSON-RPC error body, never
 * cached. A domain error raised before the SDK (the credential lookup finding the database
 * unavailable, say) is answered the same way: its kind's status, `Retry-After` when it has one,
 * the server-defined code with the error's stable code in `data`.
 */
@Catch(McpRefusal, DomainError)
export class JsonRpcErrorFilter implements ExceptionFilter {
  catch(exception: McpRefusal | DomainError, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendJsonRpcRefusal(http.getResponse<Response>(), exception, http.getRequest<Request>().body);
  }
}

/** The answer of `JsonRpcErrorFilter`, for the endpoint's own route too; `body` is the request's. */
export function sendJsonRpcRefusal(res: Response, exception: McpRefusal | DomainError, body: unknown): void {
  if (exception instanceof DomainError) {
    const retryAfter = retryAfterOf(exception);
    const headers: Record<string, string> = retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) };
    exception = new McpRefusal(exception.kind, MCP_SERVER_ERROR, exception.message, { id: echoableId(body), data: { code: exception.code }, headers });
  }
  const { id = null, data, status, headers = {} } = exception.options;
  res
    .status(status ?? HTTP_STATUS_OF_KIND[exception.kind])
    .set({ ...headers, 'Cache-Control': 'no-store' })
    .json(jsonRpcError(id, exception.rpcCode, exception.message, data));
}
