import { All, Body, Controller, HttpCode, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AgentCapability, type AuthenticatedRequest, Public } from '@app/credentials';
import { MCP_SERVER_ERROR } from './json-rpc';
import { JsonRpcErrorFilter, McpRefusal } from './mcp-http.errors';
import { McpEndpoint } from './mcp-endpoint';

/**
 * `/api/mcp`: Streamable HTTP, stateless. POST carries every JSON-RPC message and needs an
 * agent token; any other method is answered 405 with `Allow: POST` and needs no credential
 * (docs/mcp.md explains why). CORS preflights never reach here (Nest's CORS answers them).
 * Refusals are JSON-RPC error bodies written by `JsonRpcErrorFilter`. Most POSTs are served
 * before Nest's router by the endpoint's own route (`McpEndpoint.serve`); this route serves the
 * rest (a query string, say) and keeps the endpoint's declared access in the route table. Each
 * message gets its trace span in `McpEndpoint.post` (`mcp-tracing.ts`), on either route.
 */
@ApiExcludeController()
@UseFilters(JsonRpcErrorFilter)
@Controller('api/mcp')
export class McpController {
  constructor(private readonly endpoint: McpEndpoint) {}

  @Post()
  @AgentCapability()
  @HttpCode(200)
  async post(@Req() req: AuthenticatedRequest, @Res() res: Response, @Body() body: unknown): Promise<void> {
    // The body as the global pipes left it, as the endpoint's own route hands it on (docs/architecture.md).
    req.body = body;
    await this.endpoint.post(req, res);
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
