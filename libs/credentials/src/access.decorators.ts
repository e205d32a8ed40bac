import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import { AuditActor, requestOrigin } from '@app/audit';
import type { MembershipRole } from '@app/tenancy';
import type { ApiKeyPermission } from '@app/credential-store';
import { actorOf, Principal } from './principal';

export const ACCESS_METADATA = 'agent-gateway:access';
export const ORGANIZATION_ROUTE_METADATA = 'agent-gateway:organization-param';

export interface RestAccessOptions {
  /**
   * For routes under an organisation (`@OrganizationRoute`): the permission an `rk_` key must
   * hold. A session needs the role `minRole` in the organisation instead.
   */
  permission?: ApiKeyPermission;
  /** The least role a session needs in the route's organisation; default `admin`. */
  minRole?: MembershipRole;
  /** Only a session may call the route (an `rk_` key gets 403). */
  sessionOnly?: boolean;
}

export interface PageAccessOptions {
  /** The least role the person needs in the route's organisation (`@OrganizationRoute`); default `admin`. */
  minRole?: MembershipRole;
}

export type RouteAccess =
  | { type: 'public' }
  | { type: 'agent' }
  | ({ type: 'rest' } & RestAccessOptions)
  | ({ type: 'page' } & PageAccessOptions)
  | { type: 'scim' };

/** No credential needed. */
export const Public = () => SetMetadata(ACCESS_METADATA, { type: 'public' } satisfies RouteAccess);

/** Only an agent token (`dga_`) opens the route; anything else gets the MCP 401. */
export const AgentCapability = () => SetMetadata(ACCESS_METADATA, { type: 'agent' } satisfies RouteAccess);

/** A session JWT or an `rk_` key, with the organisation rules of `RestAccessOptions`. */
export const RestAuth = (options: RestAccessOptions = {}) =>
  SetMetadata(ACCESS_METADATA, { type: 'rest', ...options } satisfies RouteAccess);

/**
 * A dashboard page or form: the session from the session cookie only (never `Authorization`, so
 * no REST credential opens a page and no page credential opens REST). Without a session, a GET is
 * sent to sign in (`PageSignInRequired`). Under an organisation (`@OrganizationRoute`), the same
 * rule as REST sessions: a membership with at least `minRole`, another organisation is "not found".
 */
export const PageAuth = (options: PageAccessOptions = {}) =>
  SetMetadata(ACCESS_METADATA, { type: 'page', ...options } satisfies RouteAccess);

/**
 * A SCIM 2.0 route (`/scim/v2`): only an organisation's `scim_` token opens it (resolved by the
 * `ScimTokenResolver` the SCIM tokens library provides); the principal names that organisation.
 */
export const ScimAuth = () => SetMetadata(ACCESS_METADATA, { type: 'scim' } satisfies RouteAccess);

/**
 * The route (or every route of the controller) is under the organisation named by the path
 * parameter `param`: the guard checks the caller's access to that organisation (membership role
 * or `rk_` key of it; another organisation → 404). A route with a parameter that looks like an
 * organisation, or under `/api/organizations/:x`, must declare it, or the application does not
 * start (`OrganizationRouteCheck`).
 */
export const OrganizationRoute = (param: string) => SetMetadata(ORGANIZATION_ROUTE_METADATA, param);

/** The authenticated principal the guard attached to the request. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal | undefined => {
  return ctx.switchToHttp().getRequest().principal;
});

/**
 * The request's audit actor: its principal (`actorOf`) and origin (`requestOrigin`), what every
 * service that records a change takes last.
 */
export const RequestActor = createParamDecorator((_: unknown, ctx: ExecutionContext): AuditActor => {
  const req = ctx.switchToHttp().getRequest<Request & { principal: Principal }>();
  return actorOf(req.principal, requestOrigin(req));
});
