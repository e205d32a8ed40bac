import { CanActivate, ExecutionContext, ForbiddenException, Injectable, Logger, Optional, OnApplicationBootstrap, UnauthorizedException } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { Request } from 'express';
import passport from 'passport';
import { AppConfig } from '@app/config';
import { Metrics } from '@app/observability';
import { requestOrigin, type RequestOrigin } from '@app/audit';
import { ACCESS_METADATA, ORGANIZATION_ROUTE_METADATA, RouteAccess } from './access.decorators';
import { AgentTokenService } from './agent-token.service';
import { McpUnauthorizedException } from './mcp-unauthorized';
import { OrganizationAccessPolicy } from './organization-access.policy';
import type { AgentPrincipal, Principal, RestPrincipal } from './principal';
import { ScimTokenResolver } from './scim-token.resolver';
import { SessionTokenService } from '@app/people';
import { readSessionCookie } from '@app/web';
import { STRATEGY_FOR_FORM } from './strategies/bearer.strategies';
import { credentialForm, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';

export type AuthenticatedRequest = Request & {
  principal?: Principal;
  /** For the MCP SDK: the agent token as an `AuthInfo`. */
  auth?: { token: string; clientId: string; scopes: string[]; expiresAt?: number; extra: { principal: AgentPrincipal; origin: RequestOrigin } };
};

const BEARER_RE = /^Bearer[ ]+([^\s]+)[ ]*$/i;

type Extracted = { kind: 'none' } | { kind: 'conflict' } | { kind: 'malformed' } | { kind: 'token'; token: string };

/**
 * The one global guard, deny by default: a route without an access declaration is closed.
 * It reads the credential, picks the passport strategy by the credential's form and puts one
 * typed principal on the request.
 */
@Injectable()
export class CredentialGuard implements CanActivate, OnApplicationBootstrap {
  private readonly logger = new Logger(CredentialGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly organizations: OrganizationAccessPolicy,
    private readonly agentTokens: AgentTokenService,
    private readonly sessions: SessionTokenService,
    private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /** The SCIM tokens library's token resolver, found at start-up (`onApplicationBootstrap`). */
  private scimTokens?: ScimTokenResolver;

  /**
   * Finds the SCIM tokens library's token resolver once, at start-up. An application that serves HTTP
   * checks it is there before it starts (`requireScimTokenResolver`); a context without routes
   * (the command line) does not need it.
   */
  onApplicationBootstrap(): void {
    this.scimTokens = scimTokenResolverOf(this.moduleRef) ?? undefined;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    try {
      return await this.check(context);
    } catch (error) {
      const req = context.switchToHttp().getRequest<Request>();
      // An agent check counts its own refusal (`authenticateAgentRequest`).
      if ((req as AgentChecked)[AGENT_CHECK] === undefined) this.metrics?.recordCredentialRefusal(...refusalOf(req, error));
      throw error;
    }
  }

  /**
   * The check of an `@AgentCapability()` route (`POST /api/mcp`): the extraction, the agent-token
   * strategy and the principal, with its refusals (`McpUnauthorizedException`, a domain error
   * when the database is unavailable) counted in the metrics. It runs once per request: the
   * application calls it before the body is read, and the endpoint or this guard later get the
   * same outcome.
   */
  authenticateAgentRequest(req: AuthenticatedRequest): Promise<void> {
    const checked = req as AgentChecked;
    return (checked[AGENT_CHECK] ??= this.checkAgent(req));
  }

  private async checkAgent(req: AuthenticatedRequest): Promise<void> {
    try {
      await this.authenticateAgent(req);
    } catch (error) {
      this.metrics?.recordCredentialRefusal(...refusalOf(req, error));
      throw error;
    }
  }

  private async check(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return false;
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!access) {
      this.logger.error(`route ${req.method} ${req.route?.path ?? req.path} declares no access; refused`);
      throw new ForbiddenException('This route is closed');
    }
    switch (access.type) {
      case 'public':
        return true;
      case 'agent':
        return this.authenticateAgentRequest(req).then(() => true);
      case 'rest':
        return this.authenticateRest(req, access, this.organizationParam(context));
      case 'page':
        return this.authenticatePage(req, access, this.organizationParam(context));
      case 'scim':
        return this.authenticateScim(req);
    }
  }

  /**
   * A SCIM route: an organisation's live `scim_` token in `Authorization: Bearer`, nothing else
   * (a session or an `rk_` key is no SCIM client). The principal names the token's organisation;
   * the SCIM service reaches that organisation's people only.
   */
  private async authenticateScim(req: AuthenticatedRequest): Promise<boolean> {
    const extracted = extractCredential(req, false);
    if (extracted.kind === 'none') throw new UnauthorizedException('Missing credential: send Authorization: Bearer <scim_ token>');
    if (extracted.kind !== 'token' || !isWellFormedToken(extracted.token, TOKEN_PREFIXES.scim)) {
      throw new UnauthorizedException('SCIM requests need an organisation\'s scim_ token');
    }
    if (!this.scimTokens) throw new Error(MISSING_SCIM_RESOLVER);
    const principal = await this.scimTokens.resolve(extracted.token);
    if (!principal) throw new UnauthorizedException('Invalid or revoked scim_ token');
    req.principal = principal;
    return true;
  }

  private async authenticateAgent(req: AuthenticatedRequest): Promise<boolean> {
    const extracted = extractCredential(req, true);
    if (extracted.kind === 'none') throw McpUnauthorizedException.missing;
    if (extracted.kind !== 'token' || credentialForm(extracted.token) !== 'agent_token') {
      throw McpUnauthorizedException.invalid;
    }
    // What the agent-token strategy validates with, called directly: this is every agent request,
    // and passport's round (a strategy object and closures per call) would add only garbage.
    const principal = await this.agentTokens.resolve(extracted.token);
    if (!principal) throw McpUnauthorizedException.unrecognisedAgentToken;
    req.principal = principal;
    req.auth = {
      token: extracted.token,
      clientId: principal.clientId ?? principal.serviceKeyId ?? principal.tokenId,
      scopes: [...principal.permissions],
      ...(principal.expiresAt ? { expiresAt: Math.floor(principal.expiresAt.getTime() / 1000) } : {}),
      extra: { principal, origin: requestOrigin(req) },
    };
    return true;
  }

  /** A dashboard page: the session cookie only; the organisation rule of REST sessions. */
  private async authenticatePage(req: AuthenticatedRequest, access: Extract<RouteAccess, { type: 'page' }>, orgParam: string | undefined) {
    const jwt = readSessionCookie(req, this.config);
    const principal = jwt ? await this.sessions.resolve(jwt) : null;
    if (!principal) throw new PageSignInRequired(req.method === 'GET' ? req.originalUrl : '/');
    if (orgParam !== undefined) {
      const orgId = req.params?.[orgParam];
      const next = req.method === 'GET' ? req.originalUrl : undefined;
      await this.organizations.check(principal, typeof orgId === 'string' ? orgId : '', { minRole: access.minRole ?? 'admin', sessionOnly: true }, next);
    }
    req.principal = principal;
    return true;
  }

  /** The path parameter naming the route's organisation, as the route declares it (`@OrganizationRoute`). */
  private organizationParam(context: ExecutionContext): string | undefined {
    return this.reflector.getAllAndOverride<string | undefined>(ORGANIZATION_ROUTE_METADATA, [context.getHandler(), context.getClass()]);
  }

  private async authenticateRest(req: AuthenticatedRequest, access: Extract<RouteAccess, { type: 'rest' }>, orgParam: string | undefined) {
    const extracted = extractCredential(req, false);
    if (extracted.kind === 'none') throw new UnauthorizedException('Missing credential: send Authorization: Bearer <session JWT or rk_ API key>');
    if (extracted.kind !== 'token') throw new UnauthorizedException('Unrecognised credential');
    const form = credentialForm(extracted.token);
    if (form === 'unrecognised') throw new UnauthorizedException('Unrecognised credential');
    if (form === 'scim_token') throw new UnauthorizedException('A scim_ token opens /scim/v2 only; the REST surface needs a session or an rk_ API key');
    const principal = await runStrategy<Principal>(STRATEGY_FOR_FORM[form], extracted.token, req);
    if (!principal) throw new UnauthorizedException('Invalid, expired or revoked credential');
    if (principal.kind === 'agent') {
      throw new ForbiddenException('An agent token opens capabilities at /api/mcp only; the REST surface needs a session or an rk_ API key');
    }
    // A declared organisation parameter that is missing from the request is no organisation (404).
    const orgId = orgParam === undefined ? undefined : req.params?.[orgParam];
    await this.organizations.authorize(principal as RestPrincipal, access, orgParam === undefined ? undefined : typeof orgId === 'string' ? orgId : '');
    req.principal = principal;
    return true;
  }
}

/** Each request's agent check, made once (`authenticateAgentRequest`) and kept with the request. */
const AGENT_CHECK = Symbol('agentCheck');
type AgentChecked = Request & { [AGENT_CHECK]?: Promise<void> };

/**
 * Thrown for a page route without a live session: the pages' filter sends the browser to sign in
 * (and back to `returnTo` afterwards, for a GET).
 */
export class PageSignInRequired extends UnauthorizedException {
  constructor(readonly returnTo: string) {
    super('Sign in to continue');
  }
}

/** The credential kind a refused request presented and why it was refused, as fixed names for the metrics. */
function refusalOf(req: Request, error: unknown): Parameters<Metrics['recordCredentialRefusal']> {
  const extracted = extractCredential(req, req.headers['x-agent-token'] !== undefined);
  const form = extracted.kind === 'token' ? credentialForm(extracted.token) : 'none';
  const status = error instanceof McpUnauthorizedException ? 401 : ((error as { getStatus?: () => number }).getStatus?.() ?? 500);
  const byStatus = status === 401 ? 'invalid' : status === 403 ? 'forbidden' : status === 404 ? 'not_found' : 'error';
  const reason = extracted.kind === 'token' ? byStatus : extracted.kind === 'none' ? 'missing' : extracted.kind;
  return [form, reason];
}

/**
 * `Authorization: Bearer X`, or on the MCP endpoint `x-agent-token: X`. Two different
 * credentials in one request are refused; the same one in both headers is accepted.
 */
function extractCredential(req: Request, allowAgentHeader: boolean): Extracted {
  const authorization = req.headers.authorization;
  const agentHeader = allowAgentHeader ? req.headers['x-agent-token'] : undefined;
  let fromAuthorization: string | undefined;
  if (authorization !== undefined && authorization !== '') {
    const match = BEARER_RE.exec(authorization);
    if (!match) return { kind: 'malformed' };
    fromAuthorization = match[1];
  }
  let fromAgentHeader: string | undefined;
  if (agentHeader !== undefined) {
    if (Array.isArray(agentHeader)) return { kind: 'conflict' };
    const trimmed = agentHeader.trim();
    if (trimmed === '' || /\s/.test(trimmed)) return { kind: 'malformed' };
    fromAgentHeader = trimmed;
  }
  if (fromAuthorization && fromAgentHeader && fromAuthorization !== fromAgentHeader) return { kind: 'conflict' };
  const token = fromAuthorization ?? fromAgentHeader;
  return token ? { kind: 'token', token } : { kind: 'none' };
}

/** Runs one registered passport-http-bearer strategy on the credential alone. */
function runStrategy<T extends Principal>(name: string, token: string, req: Request): Promise<T | null> {
  const shim = { headers: { authorization: `Bearer ${token}` }, query: {}, body: {}, ip: req.ip };
  return new Promise((resolve, reject) => {
    passport.authenticate(name, { session: false }, (err: unknown, user: T | false) => {
      if (err) reject(err);
      else resolve(user || null);
    })(shim, {}, reject);
  });
}

const MISSING_SCIM_RESOLVER =
  'No ScimTokenResolver is provided: the application must import the SCIM tokens library (ScimTokensModule of @app/scim-tokens), whose tokens the guard checks on SCIM routes';

function scimTokenResolverOf(modules: Pick<ModuleRef, 'get'>): ScimTokenResolver | null {
  try {
    return modules.get(ScimTokenResolver, { strict: false });
  } catch {
    return null;
  }
}

/**
 * Fails the start of an application that serves HTTP without the SCIM tokens library's resolver,
 * naming what is missing, rather than refusing every SCIM request at run time.
 */
export function requireScimTokenResolver(app: Pick<ModuleRef, 'get'>): void {
  if (!scimTokenResolverOf(app)) throw new Error(MISSING_SCIM_RESOLVER);
}
