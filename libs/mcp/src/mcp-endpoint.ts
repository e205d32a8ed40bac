import { Injectable, Optional } from '@nestjs/common';
import type { Response } from 'express';
import { RefusalAggregates } from '@app/audit';
import { DomainError, HTTP_STATUS_OF_KIND } from '@app/common';
import { type AuthenticatedRequest, CredentialGuard, McpUnauthorizedException } from '@app/credentials';
import { McpRefusal, sendJsonRpcRefusal } from './mcp-http.errors';
import { McpRateLimiter } from './mcp-rate-limiter';
import { McpTrace } from './mcp-tracing';
import { McpService } from './mcp.service';

/**
 * `POST /api/mcp` once its body is read and checked: the request limits, then the MCP service.
 * Nest's route (`McpController`) calls `post` after the global guard; the endpoint's own route
 * (`serve`, registered ahead of Nest's routes by the application) takes the guard's agent check
 * itself (made once per request, before the body was read) and answers the refusals the route's
 * filters would.
 */
@Injectable()
export class McpEndpoint {
  constructor(
    private readonly guard: CredentialGuard,
    private readonly limits: McpRateLimiter,
    private readonly mcp: McpService,
    @Optional() private readonly refusals?: RefusalAggregates,
  ) {}

  /** Each message gets its trace span here (`mcp-tracing.ts`), request limits and refusals included. */
  async post(req: AuthenticatedRequest, res: Response): Promise<void> {
    const trace = McpTrace.start(req, (name) => this.mcp.isTool(name));
    try {
      if (req.principal?.kind === 'agent') {
        const pending = this.limits.check(req.principal, req.body);
        if (pending) await pending;
      }
      await trace.run(() => this.mcp.handle(req, res));
    } catch (error) {
      trace.fail(error);
      throw error;
    }
    trace.end(res.statusCode);
  }

  /**
   * The whole authenticated POST: the agent check's outcome, then `post`. Refusals of the MCP transport
   * (and domain errors, such as an unavailable database) are answered as `JsonRpcErrorFilter`
   * answers them; anything else (the 401 of a missing or invalid credential, a bug) is thrown for
   * the application's exception handling, as on Nest's route.
   */
  async serve(req: AuthenticatedRequest, res: Response): Promise<void> {
    try {
      await this.guard.authenticateAgentRequest(req);
      await this.post(req, res);
    } catch (error) {
      this.countRefusal(error, req);
      if (!this.refuse(error, req, res)) throw error;
    }
  }

  /** A 401, 403 or 429 refusal, counted in the audit trail's aggregates (SPEC §10). */
  countRefusal(error: unknown, req: AuthenticatedRequest): void {
    if (!this.refusals) return;
    const status = error instanceof McpUnauthorizedException ? 401 : error instanceof McpRefusal || error instanceof DomainError ? HTTP_STATUS_OF_KIND[error.kind] : 0;
    if (status !== 401 && status !== 403 && status !== 429) return;
    const agent = req.principal?.kind === 'agent' ? req.principal : undefined;
    const reason = error instanceof McpUnauthorizedException ? error.reason : error instanceof DomainError ? error.code : (error as McpRefusal).kind;
    this.refusals.refused({ organizationId: agent?.organizationId ?? null, projectId: agent?.projectId ?? null, credentialId: agent?.tokenId ?? null, ip: req.ip ?? null, status, reason });
  }

  /**
   * Answers `error` as `JsonRpcErrorFilter` (the controller's filter) does, when it is one of its
   * kinds and nothing was sent yet; false otherwise.
   */
  refuse(error: unknown, req: { body?: unknown }, res: Response): boolean {
    if (!(error instanceof McpRefusal || error instanceof DomainError) || res.headersSent) return false;
    sendJsonRpcRefusal(res, error, req.body);
    return true;
  }
}
