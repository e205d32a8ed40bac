import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, type RequestOrigin } from '@app/audit';
import { RECENT_SIGN_IN_SECONDS, RecentSignIn, SessionReach, type SessionPrincipal } from '@app/people';
import { IdentityLinkDirectory, IdentityProviderDirectory, SsoStateDirectory, type IdentityProviderRecord } from '@app/identity';
import { UserDirectory } from '@app/tenancy';
import { CLOCK_SKEW_SECONDS, type IdTokenClaims } from './sso-relying-party';
import { AuthTimeRefusal } from './sso-relying-party.errors';
import { SsoAuthorization } from './sso-authorization';
import type { SignInState } from './sso-cookies';
import type { StartedSignIn } from './sso-sign-in.parts';
import { SsoSignInService } from './sso-sign-in.service';
import { SsoSignInError } from './sso.errors';

/**
 * The step-up of a single sign-on session (SPEC §10): the changes that need a sign-in of the
 * last 15 minutes (approval decisions, the policy, the approval webhook, the audit sinks) are
 * confirmed by signing in again through the session's identity provider with `max_age=0`. The
 * answer must carry the session person's linked (`iss`, `sub`) and an `auth_time` after the
 * request started (within `CLOCK_SKEW_SECONDS`) and within 15 minutes, both by the database's
 * clock. It refreshes THIS session's `authenticated_at`; it opens no session and changes no one's
 * membership. Every refusal after the IdP answered is audited (`session.reauthentication_failed`).
 */
@Injectable()
export class SsoStepUpService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly providers: IdentityProviderDirectory,
    private readonly links: IdentityLinkDirectory,
    private readonly states: SsoStateDirectory,
    private readonly reach: SessionReach,
    private readonly users: UserDirectory,
    private readonly authorization: SsoAuthorization,
    private readonly signIn: SsoSignInService,
    private readonly recent: RecentSignIn,
    private readonly audit: AuditService,
  ) {}

  /**
   * The authorization request of a step-up for `session`, through the IdP it was opened with:
   * that of `organizationId` when it is that issuer's, else of another organisation the session
   * opens whose IdP is that issuer.
   */
  async start(session: SessionPrincipal, organizationId: string | null, returnTo: string): Promise<StartedSignIn> {
    if (!session.ssoIssuer) {
      throw new SsoSignInError('step_up_not_sso', 'This session was opened with a password: confirm the change with your password on its page instead.', 'invalid_input');
    }
    const provider = await this.providerFor(session, session.ssoIssuer, organizationId);
    const email = (await this.users.findById(session.userId))?.email;
    return this.authorization.request(provider, returnTo, { ...(email ? { loginHint: email } : {}), stepUp: { sessionId: session.sessionId, userId: session.userId } });
  }

  /**
   * The IdP's answer to a step-up (`state.stepUp` set), arriving in the browser of `session`
   * (null: no live session there). Answers where to go back to.
   */
  async finish(
    state: SignInState,
    query: { state?: string; code?: string; error?: string; iss?: string },
    arrivedOn: string,
    session: SessionPrincipal | null,
    origin: RequestOrigin,
  ): Promise<string> {
    const stepUp = state.stepUp!;
    // openid-client checks auth_time against the request's max_age=0; a missing or old one is
    // answered below as not recent, once the session and the account are known to be the right ones.
    let answer: { provider: IdentityProviderRecord; claims: IdTokenClaims } | null = null;
    let staleAuthTime: AuthTimeRefusal | null = null;
    try {
      answer = await this.signIn.checkedAnswer(state, query, arrivedOn);
    } catch (error) {
      if (!(error instanceof AuthTimeRefusal)) throw error;
      staleAuthTime = error;
    }
    const provider = answer?.provider ?? (await this.providers.find(state.organizationId));
    const subject = answer?.claims.sub ?? staleAuthTime?.subject;
    if (!provider || provider.issuer !== state.issuer || subject === undefined) throw staleAuthTime!;
    const started = await this.states.stepUpOf(state.state);
    // The state was marked for this session on the server when it started, and the browser still holds that session.
    if (!started || started.sessionId !== stepUp.sessionId || session?.sessionId !== stepUp.sessionId || session.userId !== stepUp.userId) {
      throw new SsoSignInError(
        'step_up_session_changed',
        'This browser is no longer signed in with the session that asked to sign in again. Sign in and try again.',
        'unauthenticated',
      );
    }
    const failed = (reason: string) => this.record(session, provider, 'session.reauthentication_failed', origin, { reason, subject });
    if (provider.issuer !== session.ssoIssuer || (await this.links.userFor(provider.issuer, subject)) !== session.userId) {
      await failed('account_mismatch');
      throw new SsoSignInError(
        'step_up_account_mismatch',
        `You signed in at ${new URL(provider.issuer).host} with another account than the one linked to the person signed in here, so this sign-in was not refreshed. Sign in again with your own account.`,
        'forbidden',
      );
    }
    if (staleAuthTime || !isRecent(answer!.claims, started)) {
      await failed('not_recent');
      throw new SsoSignInError(
        'step_up_not_recent',
        `The identity provider did not confirm that you signed in again just now (its answer carries no recent auth_time), so this sign-in was not refreshed. Try again, and sign in at ${new URL(provider.issuer).host} when it asks.`,
        'unauthenticated',
      );
    }
    if (!(await this.recent.refresh(session.userId, session.sessionId))) {
      throw new SsoSignInError('step_up_session_changed', 'This session ended meanwhile. Sign in and try again.', 'unauthenticated');
    }
    await this.record(session, provider, 'session.reauthenticated', origin, {});
    return state.next;
  }

  private async providerFor(session: SessionPrincipal, issuer: string, organizationId: string | null): Promise<IdentityProviderRecord> {
    const { open } = await this.reach.organizationsOf(session);
    const ids = open.map((o) => o.id).sort((a, b) => Number(b === organizationId) - Number(a === organizationId));
    const rules = await this.providers.signInRules(ids);
    const chosen = ids.find((id) => rules.get(id)?.issuer === issuer);
    const provider = chosen ? await this.providers.find(chosen) : null;
    if (!provider || provider.issuer !== issuer) {
      throw new SsoSignInError(
        'step_up_not_available',
        'The identity provider this session was signed in with is no longer connected to any of your organisations. Sign out and sign in again.',
        'invalid_input',
      );
    }
    return provider;
  }

  private record(
    session: SessionPrincipal,
    provider: IdentityProviderRecord,
    action: 'session.reauthenticated' | 'session.reauthentication_failed',
    origin: RequestOrigin,
    extra: Record<string, string>,
  ): Promise<void> {
    return this.audit.record(this.dataSource.manager, {
      organizationId: provider.organizationId,
      actorType: 'user',
      actorId: session.userId,
      action,
      targetType: 'session',
      targetId: session.sessionId,
      metadata: { method: 'sso', issuer: provider.issuer, ...extra },
      origin,
    });
  }
}

/**
 * `auth_time` (OpenID Connect Core §2) after the step-up started, allowing the clock skew, not in
 * the future, and within the last 15 minutes, by the database's clock.
 */
export function isRecent(claims: IdTokenClaims, started: { startedAt: number; now: number }): boolean {
  const authTime = claims.auth_time;
  if (typeof authTime !== 'number' || !Number.isFinite(authTime)) return false;
  return authTime >= started.startedAt - CLOCK_SKEW_SECONDS && authTime <= started.now + CLOCK_SKEW_SECONDS && started.now - authTime <= RECENT_SIGN_IN_SECONDS;
}
