import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { DomainError } from '@app/common';
import { SessionDirectory } from '@app/tenancy';
import type { AuthenticatedRequest } from './credential.guard';
import type { Principal } from './principal';

/** How recent a sign-in must be for the changes that need one (SPEC §10): 15 minutes. */
export const RECENT_SIGN_IN_SECONDS = 15 * 60;

/** A change that needs a sign-in of the last 15 minutes, asked of an older session. */
export class ReauthenticationRequiredError extends DomainError {
  constructor() {
    super(
      'reauthentication_required',
      'This change needs a sign-in within the last 15 minutes: sign in again (POST /api/auth/reauthenticate with your password, or single sign-on) and retry',
      'unauthenticated',
    );
  }
}

/**
 * The recent sign-in that policy changes (and, later, approval decisions, the approval webhook
 * and the audit sinks) need: the session's `authenticated_at` (database clock) within the last
 * 15 minutes. Only a person's session can satisfy it; anything else is refused the same way.
 */
@Injectable()
export class RecentSignIn {
  constructor(private readonly sessions: SessionDirectory) {}

  /** Throws `ReauthenticationRequiredError` unless the principal is a session authenticated in the last 15 minutes. */
  async require(principal: Principal | undefined): Promise<void> {
    if (principal?.kind !== 'session') throw new ReauthenticationRequiredError();
    if (!(await this.sessions.authenticatedWithin(principal.userId, principal.sessionId, RECENT_SIGN_IN_SECONDS))) {
      throw new ReauthenticationRequiredError();
    }
  }

  /** Records a fresh proof of identity in the session (a password re-entered, a new single sign-on). */
  refresh(userId: string, sessionId: string): Promise<boolean> {
    return this.sessions.markAuthenticated(userId, sessionId);
  }
}

/** Runs after the credential guard: the route's session must have signed in within 15 minutes. */
@Injectable()
export class RecentSignInGuard implements CanActivate {
  constructor(private readonly recent: RecentSignIn) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.recent.require(context.switchToHttp().getRequest<AuthenticatedRequest>().principal);
    return true;
  }
}

/** The route needs a sign-in of the last 15 minutes (else 401 `reauthentication_required`). */
export const RequireRecentSignIn = () => applyDecorators(UseGuards(RecentSignInGuard));
