import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/common';
import { SessionDirectory } from '@app/tenancy';
import type { SessionPrincipal } from './session-principal';

/** How recent a sign-in must be for the changes that need one (SPEC §10): 15 minutes. */
export const RECENT_SIGN_IN_SECONDS = 15 * 60;

/** Where a single sign-on session signs in again (`GET`, in a browser; `organization` and `return_to` in the query). */
export const SSO_STEP_UP_PATH = '/auth/sso/step-up';
/** Where a password session signs in again (`POST {password}` with the session). */
export const PASSWORD_REAUTHENTICATE_PATH = '/api/auth/reauthenticate';

/** How a session refreshes its sign-in: the password, or its identity provider with `max_age=0`. */
export type RecentSignInMethod = 'password' | 'sso';

/**
 * The method of the sign-in that opened the session. It is always one that opens the
 * organisation the change is made in (`sessionReachRefusal`: an organisation requiring single
 * sign-on is reached only by a single sign-on through its own IdP, any other by any session), so
 * a refresh by this method is "the method that opens the organisation" (SPEC §10). A single
 * sign-on session never refreshes by password: its one `authenticated_at` also serves the
 * organisations that require single sign-on.
 */
export function recentSignInMethod(session: Pick<SessionPrincipal, 'ssoIssuer'>): RecentSignInMethod {
  return session.ssoIssuer ? 'sso' : 'password';
}

/** Where the session signs in again: the step-up for its IdP (for the organisation, back to `returnTo`), or the password route. */
export function reauthenticatePath(method: RecentSignInMethod, where: { organizationId?: string; returnTo?: string } = {}): string {
  if (method === 'password') return PASSWORD_REAUTHENTICATE_PATH;
  const query = new URLSearchParams({
    ...(where.organizationId ? { organization: where.organizationId } : {}),
    ...(where.returnTo ? { return_to: where.returnTo } : {}),
  }).toString();
  return query ? `${SSO_STEP_UP_PATH}?${query}` : SSO_STEP_UP_PATH;
}

/**
 * A change that needs a sign-in of the last 15 minutes, asked of an older session. Over REST the
 * answer says how to refresh it: `method` and `reauthenticateUrl` (a path on this service).
 */
export class ReauthenticationRequiredError extends DomainError {
  readonly restFields: { method: RecentSignInMethod; reauthenticateUrl: string };

  constructor(session?: Pick<SessionPrincipal, 'ssoIssuer'>, organizationId?: string) {
    const method = session ? recentSignInMethod(session) : 'password';
    super(
      'reauthentication_required',
      method === 'sso'
        ? `This change needs a sign-in within the last 15 minutes: sign in again through your identity provider (${SSO_STEP_UP_PATH}, in a browser) and retry`
        : `This change needs a sign-in within the last 15 minutes: sign in again (POST ${PASSWORD_REAUTHENTICATE_PATH} with your password) and retry`,
      'unauthenticated',
    );
    this.restFields = { method, reauthenticateUrl: reauthenticatePath(method, { organizationId }) };
  }
}

/**
 * The recent sign-in that policy changes, approval decisions, the approval webhook and the audit
 * sinks need: the session's `authenticated_at` (database clock) within the last
 * 15 minutes. Only a person's session can satisfy it; anything else is refused the same way.
 */
@Injectable()
export class RecentSignIn {
  constructor(private readonly sessions: SessionDirectory) {}

  /**
   * Throws `ReauthenticationRequiredError` unless the principal is a session authenticated in the
   * last 15 minutes (`organizationId`: where the change is made, named in the answer's step-up URL).
   */
  async require(principal: { readonly kind: string } | undefined, organizationId?: string): Promise<void> {
    if (!isSession(principal)) throw new ReauthenticationRequiredError();
    if (!(await this.sessions.authenticatedWithin(principal.userId, principal.sessionId, RECENT_SIGN_IN_SECONDS))) {
      throw new ReauthenticationRequiredError(principal, organizationId);
    }
  }

  /** Records a fresh proof of identity in the session (a password re-entered, a step-up through its IdP). */
  refresh(userId: string, sessionId: string): Promise<boolean> {
    return this.sessions.markAuthenticated(userId, sessionId);
  }
}

/** Whether the request's principal (any kind the access check knows) is a person's session. */
function isSession(principal: { readonly kind: string } | undefined): principal is SessionPrincipal {
  return principal?.kind === 'session';
}
