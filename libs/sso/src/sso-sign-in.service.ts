import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService, type RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { SessionTokenService, LastAdminError, MembersService, PasswordCheck } from '@app/people';
import { IdentityLinkDirectory, IdentityProviderDirectory, SsoRouting, type IdentityProviderRecord } from '@app/identity';
import { hasPassword, MembershipDirectory, MembershipRole, NO_PASSWORD, normalizeEmail, UserDirectory } from '@app/tenancy';
import { SsoRelyingParty, type IdTokenClaims } from './sso-relying-party';
import { desiredRole } from './roles-from-groups';
import type { PendingLink, SignInState } from './sso-cookies';
import { SsoAuthorization } from './sso-authorization';
import { SsoSignInError } from './sso.errors';
import { idpVouchesForEmail } from './email-vouched';
import { SsoCallbackChecks } from './sso-callback-checks';
import { alreadyLinked, deprovisioned, displayName, SsoNotSetUpError, tenantOf, type SignInOutcome, type StartedSignIn } from './sso-sign-in.parts';

/**
 * Single sign-on with an organisation's OpenID Connect identity provider: the authorization code
 * request (PKCE S256, `state`, `nonce`), the callback's checks and code exchange, and what the
 * checked ID token opens — the person linked to (`iss`, `sub`); a pending link of an account SCIM
 * made, filled; an existing password account, only after its password (`completeLink`); else a
 * new account and membership (just in time) — then the membership's role from the groups claim
 * and a session recorded with the issuer. Memberships change only in the IdP's own organisation.
 */
@Injectable()
export class SsoSignInService {
  private readonly logger = new Logger('SingleSignOn');

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly routing: SsoRouting,
    private readonly providers: IdentityProviderDirectory,
    private readonly links: IdentityLinkDirectory,
    private readonly relyingParty: SsoRelyingParty,
    private readonly users: UserDirectory,
    private readonly memberships: MembershipDirectory,
    private readonly members: MembersService,
    private readonly sessions: SessionTokenService,
    private readonly passwords: PasswordCheck,
    private readonly audit: AuditService,
    private readonly checks: SsoCallbackChecks,
    private readonly authorization: SsoAuthorization,
  ) {}

  /** Whether the email's domain routes to single sign-on (what the sign-in page asks). */
  async isRouted(email: string): Promise<boolean> {
    return (await this.routing.routeFor(email)) !== null;
  }

  /** The authorization request for the email's organisation, and the state the browser must carry back. */
  async start(email: string, next: string): Promise<StartedSignIn> {
    const route = email.length <= 320 ? await this.routing.routeFor(normalizeEmail(email)) : null;
    if (!route) throw new SsoNotSetUpError();
    const provider = await this.providers.find(route.organizationId);
    if (!provider) throw new SsoNotSetUpError();
    return this.authorization.request(provider, next, { loginHint: normalizeEmail(email) });
  }

  /**
   * The IdP's redirect back, arriving on `arrivedOn` (the redirect URI it was sent to): checked
   * against the browser's state (`null`: no cookie, expired or not ours) and the redirect URI that
   * state's IdP was given, the code exchanged, the ID token checked, then the account resolved.
   */
  async callback(
    state: SignInState | null,
    query: { state?: string; code?: string; error?: string; iss?: string },
    arrivedOn: string,
    origin: RequestOrigin,
  ): Promise<SignInOutcome> {
    const { provider, claims, state: started } = await this.checkedAnswer(state, query, arrivedOn);
    // Which claims arrive (the page tells the admin whether the groups claim does), whatever comes next.
    await this.providers.recordIdToken(provider.organizationId, provider.issuer, Object.keys(claims));
    return this.resolve(provider, claims, started.next, origin);
  }

  /**
   * The IdP's answer checked (state, redirect URI, `iss`), its code exchanged and its ID token
   * verified: what a sign-in and a step-up (`SsoStepUpService`) both start from.
   */
  async checkedAnswer(
    state: SignInState | null,
    query: { state?: string; code?: string; error?: string; iss?: string },
    arrivedOn: string,
  ): Promise<{ provider: IdentityProviderRecord; claims: IdTokenClaims; state: SignInState }> {
    const { code, state: started } = await this.checks.answer(state, query, arrivedOn);
    const provider = await this.providers.find(started.organizationId);
    if (provider) this.checks.legacyUri(provider, arrivedOn);
    const clientSecret = provider && provider.issuer === started.issuer ? await this.providers.clientSecretOf(started.organizationId) : null;
    if (!provider || clientSecret === null) {
      throw new SsoSignInError('sso_not_set_up', 'Single sign-on was changed or switched off for this organisation meanwhile. Start again.', 'invalid_input');
    }
    // The answer as it arrived on the redirect URI, for openid-client to check (state, iss) and trade.
    const callbackUrl = new URL(started.redirectUri);
    callbackUrl.searchParams.set('code', code);
    for (const name of ['state', 'iss'] as const) if (query[name] !== undefined) callbackUrl.searchParams.set(name, query[name]!);
    // A step-up asked with max_age=0: openid-client then requires auth_time and checks its age.
    const claims = await this.relyingParty.exchange(provider, clientSecret, callbackUrl, started, started.stepUp ? { maxAge: 0 } : {});
    return { provider, claims, state: started };
  }

  /**
   * The second half of linking an existing password account: its password (under the sign-in
   * limits) and the person's confirmation, then the link (`iss`, `sub`) and the sign-in.
   */
  async completeLink(link: PendingLink, input: { password: string; confirmed: boolean }, origin: RequestOrigin): Promise<{ accessToken: string; next: string }> {
    if (!input.confirmed) {
      throw new SsoSignInError('link_not_confirmed', 'Tick the box to confirm that this account may be linked.', 'invalid_input');
    }
    const profile = await this.users.findById(link.userId);
    if (!profile) throw new SsoSignInError('link_account_gone', 'That account no longer exists. Start again.', 'not_found');
    const userId = await this.passwords.check(profile.email, input.password, origin.ip ?? null);
    if (userId !== link.userId) throw new SsoSignInError('link_account_gone', 'That account no longer exists. Start again.', 'not_found');
    const provider = await this.providers.find(link.organizationId);
    if (!provider || provider.issuer !== link.issuer) {
      throw new SsoSignInError('sso_not_set_up', 'Single sign-on was changed or switched off for this organisation meanwhile. Start again.', 'invalid_input');
    }
    await this.dataSource.transaction(async (em) => {
      if (!(await this.links.link(userId, link.issuer, link.subject, em))) throw alreadyLinked();
      await this.recordLinked(em, link.organizationId, userId, link.issuer, 'password', origin);
    });
    return this.finish(provider, userId, profile.email, { role: link.role, groupsRole: link.groupsRole, tenant: link.tenant ?? null }, link.next, origin);
  }

  /** What the link page shows: the account's email and the IdP's host. */
  async linkView(link: PendingLink): Promise<{ email: string; issuerHost: string }> {
    const profile = await this.users.findById(link.userId);
    if (!profile) throw new SsoSignInError('link_account_gone', 'That account no longer exists. Start again.', 'not_found');
    return { email: profile.email, issuerHost: new URL(link.issuer).host };
  }

  private async resolve(provider: IdentityProviderRecord, claims: IdTokenClaims, next: string, origin: RequestOrigin): Promise<SignInOutcome> {
    const issuer = provider.issuer;
    const organizationId = provider.organizationId;
    const roles = { ...desiredRole(provider, claims), tenant: tenantOf(claims) };
    // Every sign-in, linked or not, must be of an email of this organisation's verified domains:
    // an issuer shared by many organisations (a cloud IdP) cannot sign someone of one organisation into another.
    const email = this.verifiedEmail(claims);
    const route = await this.routing.routeFor(email);
    if (!route || route.organizationId !== organizationId) {
      throw new SsoSignInError(
        'email_domain_not_verified',
        `The identity provider signed you in as ${email}, but that email's domain is not a verified domain of this organisation, so it cannot be used here.`,
        'forbidden',
      );
    }
    const linked = await this.links.userFor(issuer, claims.sub);
    if (linked) {
      const profile = await this.users.findById(linked);
      return this.finish(provider, linked, profile?.email ?? email, roles, next, origin);
    }
    const existing = await this.users.loginRecord(email);
    if (existing) {
      const link = await this.links.linkOf(existing.id, issuer);
      if (link && link.subject === null) {
        await this.dataSource.transaction(async (em) => {
          if (!(await this.links.link(existing.id, issuer, claims.sub, em))) throw alreadyLinked();
          await this.recordLinked(em, organizationId, existing.id, issuer, 'provisioned', origin);
        });
        return this.finish(provider, existing.id, email, roles, next, origin);
      }
      if (link) throw alreadyLinked();
      if (!hasPassword(existing.passwordHash)) {
        throw new SsoSignInError(
          'account_not_linkable',
          'An account with this email exists but cannot be linked to single sign-on here. Ask an administrator of your organisation.',
          'forbidden',
        );
      }
      return { kind: 'link_required', link: { userId: existing.id, organizationId, issuer, subject: claims.sub, next, ...roles } };
    }
    const userId = await this.createJustInTime(provider, claims, email, roles.role, origin);
    return this.finish(provider, userId, email, { role: roles.role, groupsRole: null, tenant: roles.tenant }, next, origin);
  }

  /** The ID token's email when the IdP vouches for it (`email_verified` true, or Entra's `xms_edov`), lower case. */
  private verifiedEmail(claims: IdTokenClaims): string {
    if (typeof claims.email !== 'string' || !claims.email.includes('@') || claims.email.length > 320) {
      throw new SsoSignInError('email_missing', 'The identity provider sent no email address for you, so no account can be found or made. Ask your administrator to release the email claim.', 'forbidden');
    }
    if (!idpVouchesForEmail(claims)) {
      throw new SsoSignInError('email_not_verified', 'The identity provider does not vouch for your email address (email_verified is not true), so it cannot be used to sign in.', 'forbidden');
    }
    return normalizeEmail(claims.email);
  }

  /** The account (no password), its membership with the mapped role and its link, in one transaction. */
  private async createJustInTime(provider: IdentityProviderRecord, claims: IdTokenClaims, email: string, role: MembershipRole, origin: RequestOrigin): Promise<string> {
    const { organizationId, issuer } = provider;
    return this.dataSource.transaction(async (em) => {
      if (await this.providers.isDeprovisioned(organizationId, { email }, em)) throw deprovisioned();
      const user = await this.users.create({ email, name: displayName(claims, email), passwordHash: NO_PASSWORD }, em);
      if (!user) throw new SsoSignInError('sign_in_race', 'Your account was being created by another sign-in at the same moment. Start again.', 'conflict');
      await this.memberships.add(organizationId, user.id, role, em);
      if (!(await this.links.link(user.id, issuer, claims.sub, em))) throw alreadyLinked();
      const actor = { actorType: 'user', actorId: user.id, origin };
      await this.audit.record(em, { organizationId, ...actor, action: 'sso.account_created', targetType: 'user', targetId: user.id, metadata: { issuer, email, role } });
      await this.audit.record(em, { organizationId, ...actor, action: 'member.added', targetType: 'user', targetId: user.id, metadata: { role, via: 'sso' } });
      await this.recordLinked(em, organizationId, user.id, issuer, 'just_in_time', origin);
      return user.id;
    });
  }

  /**
   * The membership in the IdP's organisation (added when missing, unless deprovisioned; its role
   * following the groups claim when one is configured and sent), then the session.
   */
  private async finish(
    provider: IdentityProviderRecord,
    userId: string,
    email: string,
    roles: { role: MembershipRole; groupsRole: MembershipRole | null; tenant?: string | null },
    next: string,
    origin: RequestOrigin,
  ): Promise<{ kind: 'signed_in'; accessToken: string; next: string }> {
    const { organizationId, issuer } = provider;
    let role = await this.memberships.roleOf(userId, organizationId);
    if (!role) {
      role = await this.dataSource.transaction(async (em) => {
        if (await this.providers.isDeprovisioned(organizationId, { userId }, em)) throw deprovisioned();
        // An admin removed them: the sign-in goes on without the membership (a new invitation lifts it).
        if (await this.memberships.removedByAdmin(organizationId, userId, em)) return null;
        if (await this.memberships.add(organizationId, userId, roles.role, em)) {
          await this.audit.record(em, { organizationId, actorType: 'user', actorId: userId, origin, action: 'member.added', targetType: 'user', targetId: userId, metadata: { role: roles.role, via: 'sso' } });
        }
        return roles.role;
      });
    } else if (roles.groupsRole && roles.groupsRole !== role) {
      try {
        const changed = await this.members.changeRole(organizationId, userId, { role: roles.groupsRole, source: 'groups' }, { actorType: 'system', actorId: null, origin });
        role = changed.role;
      } catch (error) {
        if (!(error instanceof LastAdminError)) throw error;
        this.logger.log(`The groups claim would remove the last admin of organisation ${organizationId}: the role is kept`);
      }
    }
    const session = await this.sessions.issue(userId, origin, { ssoIssuer: issuer });
    await this.audit.record(this.dataSource.manager, {
      organizationId,
      actorType: 'user',
      actorId: userId,
      origin,
      action: 'sso.sign_in',
      targetType: 'user',
      targetId: userId,
      metadata: { issuer, role },
    });
    if (role === 'admin') await this.providers.recordAdminSignIn(organizationId, issuer, roles.tenant ?? null);
    return { kind: 'signed_in', accessToken: session.accessToken, next };
  }

  private recordLinked(em: EntityManager, organizationId: string, userId: string, issuer: string, via: string, origin: RequestOrigin): Promise<void> {
    return this.audit.record(em, { organizationId, actorType: 'user', actorId: userId, origin, action: 'sso.linked', targetType: 'user', targetId: userId, metadata: { issuer, via } });
  }
}
