import type { AuditActor, RequestOrigin } from '@app/audit';
import { DomainError } from '@app/common';
import type { AgentPermission } from '@app/capabilities';
import type { AgentTokenSource, ApiKeyPermission } from '@app/credential-store';

/** A `dga_` token: opens capabilities on exactly one project. */
export interface AgentPrincipal {
  kind: 'agent';
  tokenId: string;
  source: AgentTokenSource;
  organizationId: string;
  projectId: string;
  permissions: readonly AgentPermission[];
  serviceKeyId: string | null;
  grantId: string | null;
  clientId: string | null;
  userId: string | null;
  /** The service key's name and the person's email, as the token lookup read them (the audit records' actor). */
  serviceKeyName: string | null;
  userEmail: string | null;
  expiresAt: Date | null;
  /** The version of the organisation's policy when the request's token was read (0: none; docs/policy.md). */
  policyVersion: number;
}

/** A scoped `rk_` key: one organisation, the permissions chosen at issue. */
export interface ApiKeyPrincipal {
  kind: 'api_key';
  apiKeyId: string;
  organizationId: string;
  permissions: readonly ApiKeyPermission[];
}

/** A dashboard session (JWT): one person; their memberships decide what they reach. */
export interface SessionPrincipal {
  kind: 'session';
  userId: string;
  /** The session's id (JWT `jti`), what sign-out revokes. */
  sessionId: string;
  expiresAt: Date;
  /** The person's email as the session check read it (the audit records' actor). */
  email: string | null;
  /**
   * The identity provider's issuer the session was opened through (single sign-on, the JWT's
   * `sso_iss`); null for a password sign-in. What the session opens depends on it (`SessionReach`).
   */
  ssoIssuer: string | null;
}

/** An organisation's SCIM client (`scim_` token): its organisation's `/scim/v2` only. */
export interface ScimPrincipal {
  kind: 'scim';
  scimTokenId: string;
  organizationId: string;
}

export type Principal = AgentPrincipal | ApiKeyPrincipal | SessionPrincipal | ScimPrincipal;
export type RestPrincipal = ApiKeyPrincipal | SessionPrincipal;

/** The audit actor of a request's principal, with where the request came from. */
export function actorOf(principal: Principal, origin?: RequestOrigin): AuditActor {
  const withOrigin = origin ? { origin } : {};
  switch (principal.kind) {
    case 'agent':
      return { actorType: 'agent_token', actorId: principal.tokenId, actorEmail: principal.userEmail, actorName: principal.serviceKeyName, ...withOrigin };
    case 'api_key':
      return { actorType: 'api_key', actorId: principal.apiKeyId, ...withOrigin };
    case 'session':
      return { actorType: 'user', actorId: principal.userId, actorEmail: principal.email, ...withOrigin };
    case 'scim':
      return { actorType: 'scim_token', actorId: principal.scimTokenId, ...withOrigin };
  }
}

/** The signed-in person behind an actor, or null when it is not a person's session. */
export function userOf(actor: AuditActor): string | null {
  return actor.actorType === 'user' ? actor.actorId : null;
}

/** The person acting, for what only a person can do (own an organisation, create an `rk_` key). */
export function requireUser(actor: AuditActor): string {
  const userId = userOf(actor);
  if (!userId) throw new DomainError('session_required', 'Only a person signed in with a session can do this', 'forbidden');
  return userId;
}
