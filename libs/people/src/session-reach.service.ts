import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '@app/common';
import { IdentityProviderDirectory, SignInRule } from '@app/identity';
import { MemberOrganization, MembershipDirectory, MembershipRole, OrganizationDirectory, UserDirectory } from '@app/tenancy';
import type { SessionPrincipal } from './session-principal';

/**
 * Why a session does not open an organisation its person belongs to:
 * - `sso_required`: the organisation requires single sign-on through its identity provider, and
 *   the session is a password one (or a single sign-on through another issuer);
 * - `session_predates_membership`: the session was issued before the person's current membership
 *   began (a removal, demotion or deprovisioning ended the one it was issued under; SPEC §10).
 */
export type SessionReachRefusal = 'sso_required' | 'session_predates_membership';

/** The session's part of the refusal: only the issuer it was opened through (null for a password). */
type SessionKind = Pick<SessionPrincipal, 'ssoIssuer'>;

/**
 * The one rule of what a session opens, for an organisation the person is a member of
 * (`rule`: the organisation's identity provider, null when it has none):
 * - an organisation that requires single sign-on is opened only by a single sign-on through its
 *   own identity provider;
 * - any other is opened by any session, a password one or a single sign-on through any issuer
 *   (SPEC §10 relaxes §9: a single sign-on session also opens the person's other organisations
 *   that do not require single sign-on).
 * Null: the session opens it.
 */
export function sessionReachRefusal(session: SessionKind, rule: SignInRule | null): SessionReachRefusal | null {
  if (!rule?.requireSso) return null;
  return session.ssoIssuer === rule.issuer ? null : 'sso_required';
}

/**
 * What a session opens in an organisation its person is a member of: nothing when the current
 * membership began after the session was issued (`membershipBeganAfterSession`: a removal,
 * demotion or deprovisioning ended the membership it was issued under, and an invitation or a
 * provisioning began another since), else what `sessionReachRefusal` says of the organisation's
 * identity provider (`rule`). Null: the session opens it.
 */
export function organizationRefusal(session: SessionKind, membershipBeganAfterSession: boolean, rule: SignInRule | null): SessionReachRefusal | null {
  return membershipBeganAfterSession ? 'session_predates_membership' : sessionReachRefusal(session, rule);
}

/**
 * A member's session that does not open the organisation (403). `signInHref` is where the pages
 * send the person: single sign-on for the organisation (`/auth/sso/start?email=…`), or the sign-in
 * page (`/login?email=…`).
 */
export class SessionReachError extends DomainError {
  constructor(
    readonly refusal: SessionReachRefusal,
    readonly signInHref: string,
  ) {
    super(refusal, REFUSAL_MESSAGES[refusal], refusal === 'session_predates_membership' ? 'unauthenticated' : 'forbidden');
    this.name = 'SessionReachError';
  }
}

const REFUSAL_MESSAGES: Record<SessionReachRefusal, string> = {
  sso_required: 'This organization requires single sign-on: sign in with single sign-on (/auth/sso/start) to open it',
  session_predates_membership: 'This session was issued before your current membership of this organization began: sign in again to open it',
};

/** An organisation of the person's that this session does not open, and why. */
export type ClosedOrganization<T> = T & { refusal: SessionReachRefusal };

/**
 * What a session opens: every place that acts for a session in an organisation, or lists a
 * person's organisations for a session, asks here (REST and page access through
 * `OrganizationAccessPolicy`, `/api/me`, the organisation list, the dashboard's switcher, the
 * consent page and its decision). A membership is needed first (no membership stays "not found"
 * where it was); then `organizationRefusal` decides.
 */
@Injectable()
export class SessionReach {
  constructor(
    private readonly memberships: MembershipDirectory,
    private readonly organizations: OrganizationDirectory,
    private readonly providers: IdentityProviderDirectory,
    private readonly users: UserDirectory,
  ) {}

  /**
   * Why the session does not open the organisation, or null when it does (whether the person is a
   * member is the caller's check: a non-member stays "not found" there). With the session's person
   * and id, a membership begun after the session was issued closes it too
   * (`session_predates_membership`), as everywhere else a session acts.
   */
  async refusalIn(
    session: SessionKind & Partial<Pick<SessionPrincipal, 'userId' | 'sessionId'>>,
    organizationId: string,
    em?: EntityManager,
  ): Promise<SessionReachRefusal | null> {
    const membership = session.userId && session.sessionId ? await this.memberships.roleForSession(session.userId, organizationId, session.sessionId, em) : null;
    const beganAfterSession = membership?.predates === true;
    return organizationRefusal(session, beganAfterSession, beganAfterSession ? null : await this.providers.signInRule(organizationId, em));
  }

  /**
   * The session's role in the organisation: null when its person is not a member; a
   * `SessionReachError` when they are but this session does not open it.
   */
  async roleIn(session: SessionPrincipal, organizationId: string, next?: string): Promise<MembershipRole | null> {
    const membership = await this.memberships.roleForSession(session.userId, organizationId, session.sessionId);
    if (!membership) return null;
    const rule = membership.predates ? null : await this.providers.signInRule(organizationId);
    const refusal = organizationRefusal(session, membership.predates, rule);
    if (refusal) throw await this.refusalError(session, refusal, next);
    return membership.role;
  }

  /**
   * Sorts some of the person's organisations into those the session opens and those it does not
   * (order kept). With the session's person and id, organisations whose current membership began
   * after the session was issued are closed too (`session_predates_membership`).
   */
  async sort<T extends { id: string }>(
    session: SessionKind & Partial<Pick<SessionPrincipal, 'userId' | 'sessionId'>>,
    organizations: readonly T[],
    em?: EntityManager,
  ): Promise<{ open: T[]; closed: ClosedOrganization<T>[] }> {
    const [rules, predating] = await Promise.all([
      this.providers.signInRules(
        organizations.map((o) => o.id),
        em,
      ),
      session.userId && session.sessionId && organizations.length > 0 ? this.memberships.startedAfterSession(session.userId, session.sessionId) : new Set<string>(),
    ]);
    const open: T[] = [];
    const closed: ClosedOrganization<T>[] = [];
    for (const organization of organizations) {
      const refusal = organizationRefusal(session, predating.has(organization.id), rules.get(organization.id) ?? null);
      if (refusal) closed.push({ ...organization, refusal });
      else open.push(organization);
    }
    return { open, closed };
  }

  /** The person's organisations (as `OrganizationDirectory.listForMember` orders them), sorted by what this session opens. */
  async organizationsOf(
    session: SessionPrincipal,
    order: 'created' | 'joined' = 'created',
  ): Promise<{ open: MemberOrganization[]; closed: ClosedOrganization<MemberOrganization>[] }> {
    return this.sort(session, await this.organizations.listForMember(session.userId, order));
  }

  /**
   * Where a refused person signs in to open the organisation (`next`: a safe path to come back
   * to): single sign-on for their email, or the sign-in page with their email filled in.
   */
  async signInHref(session: SessionPrincipal, refusal: SessionReachRefusal, next?: string): Promise<string> {
    const email = (await this.users.findById(session.userId))?.email ?? '';
    const query = new URLSearchParams({ email, ...(next ? { next } : {}) }).toString();
    return refusal === 'sso_required' ? `/auth/sso/start?${query}` : `/login?${query}`;
  }

  async refusalError(session: SessionPrincipal, refusal: SessionReachRefusal, next?: string): Promise<SessionReachError> {
    return new SessionReachError(refusal, await this.signInHref(session, refusal, next));
  }
}
