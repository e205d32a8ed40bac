import type { AuditActor, RequestOrigin } from '@app/audit';
import type { AgentPermission } from '@app/capabilities';
import type { AgentTokenSource, ApiKeyPermission } from '@app/credential-store';
import type { SessionPrincipal } from '@app/people';

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
