import { All, Controller, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AgentCapability, type AuthenticatedRequest, Public } from '@app/credentials';
import { MCP_SERVER_ERROR } from './json-rpc';
import { JsonRpcErrorFilter, McpRefusal } from './mcp-http.errors';
import { McpRateLimiter } from './mcp-rate-limiter';
import { McpTrace } from './mcp-tracing';
import { McpService } from './mcp.service';

/**
 * `/api/mcp`: Streamable HTTP, stateless. POST carries every JSON-RPC message and needs an
 * agent token; any other method is answered 405 with `Allow: POST` and needs no credential
 * (docs/mcp.md explains why). CORS preflights never reach here (Nest's CORS answers them).
 * Refusals are JSON-RPC error bodies written by `JsonRpcErrorFilter`. Each message gets its
 * trace span here (`mcp-tracing.ts`), request limits and refusals included.
 */
@ApiExcludeController()
@UseFilters(JsonRpcErrorFilter)
@Controller('api/mcp')
export class McpController {
  constructor(
    private readonly mcp: McpService,
    private readonly limits: McpRateLimiter,
  ) {}

  @Post()
  @AgentCapability()
  @HttpCode(200)
  async post(@Req() req: AuthenticatedRequest, @Res() res: Response): Promise<void> {
    const trace = McpTrace.start(req, (name) => this.mcp.isTool(name));
    try {
      if (req.principal?.kind === 'agent') this.limits.check(req.principal, req.body);
      await trace.run(() => this.mcp.handle(req, res));
    } catch (error) {
      trace.fail(error);
      throw error;
    }
    trace.end(res.statusCode);
  }

  @All()
  @Public()
  methodNotAllowed(): never {
    throw new McpRefusal('invalid_input', MCP_SERVER_ERROR, 'Method not allowed: this endpoint is stateless; send every JSON-RPC message with POST', {
      status: 405,
      headers: { Allow: 'POST' },
    });
  }
}
