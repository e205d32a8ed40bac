import type { AgentTokenSource } from './entities/agent-token.entity';
import type { AgentPermission, ApiKeyPermission } from './permissions';

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
  expiresAt: Date | null;
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
}

export type Principal = AgentPrincipal | ApiKeyPrincipal | SessionPrincipal;
export type RestPrincipal = ApiKeyPrincipal | SessionPrincipal;

/** Who did something, for audit events. */
export function actorOf(principal: Principal): { actorType: string; actorId: string } {
  switch (principal.kind) {
    case 'agent':
      return { actorType: 'agent_token', actorId: principal.tokenId };
    case 'api_key':
      return { actorType: 'api_key', actorId: principal.apiKeyId };
    case 'session':
      return { actorType: 'user', actorId: principal.userId };
  }
}
