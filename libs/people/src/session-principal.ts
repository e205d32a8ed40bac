import type { AuditActor } from '@app/audit';
import { DomainError } from '@app/common';

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
