import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { NotFoundError } from '@app/common';
import { hashPassword, MembershipRole, OrganizationDirectory, UserDirectory, verifyPassword } from '@app/tenancy';
import { WrongCurrentPasswordError } from './account.errors';
import type { ChangePasswordDto } from './dto/change-password.dto';
import { LoginAttemptLimits } from './login-attempt-limits.service';
import { PasswordCheck } from './password-check.service';
import { InvalidLoginError } from './people.errors';
import type { SessionPrincipal } from './session-principal';
import { type ClosedOrganization, SessionReach } from './session-reach.service';
import { SessionTokenService } from './session-token.service';

export interface SessionToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

export interface Me {
  user: { id: string; email: string; name: string; createdAt: string };
  /** The memberships whose organisation this session opens (`SessionReach`), in the order they were joined. */
  memberships: { organization: { id: string; name: string }; role: MembershipRole }[];
  /** The person's other organisations, which this session does not open, and why (not part of `GET /api/me`). */
  closedOrganizations: ClosedOrganization<{ id: string; name: string; role: MembershipRole }>[];
}

/**
 * Signing in with a password, changing one's password, and the session's own view of itself
 * (`GET /api/me`, the dashboard's account menu). `auth`'s routes and pages and the dashboard call it.
 */
@Injectable()
export class SignInService {
  constructor(
    private readonly sessions: SessionTokenService,
    private readonly passwords: PasswordCheck,
    private readonly limits: LoginAttemptLimits,
    private readonly users: UserDirectory,
    private readonly organizations: OrganizationDirectory,
    private readonly reach: SessionReach,
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  /**
   * A session JWT for the right email and password, checked by `PasswordCheck` (one
   * answer for an unknown email and a wrong password; `TooManyLoginAttemptsError` past the
   * failed-attempt limits, without looking at the password), and the sign-in audited.
   */
  async login(email: string, password: string, ip: string | null, userAgent: string | null = null): Promise<SessionToken & { userId: string }> {
    const origin = { ip, userAgent };
    let userId: string;
    try {
      userId = await this.passwords.check(email, password, ip);
    } catch (error) {
      // Written before the answer (SPEC §10); the failed-attempt limits bound how many there can be.
      if (error instanceof InvalidLoginError) await this.recordSignIn('sign_in.failed', await this.users.idByEmail(email), origin);
      throw error;
    }
    const session = await this.sessions.issue(userId, origin);
    await this.recordSignIn('sign_in.succeeded', userId, origin);
    return { ...session, userId };
  }

  /** A password sign-in or its failure, in the service's own chain, with the person's organisations. */
  private async recordSignIn(action: 'sign_in.succeeded' | 'sign_in.failed', userId: string | null, origin: RequestOrigin): Promise<void> {
    const organizations = userId ? (await this.organizations.listForMember(userId)).map((o) => o.id) : [];
    await this.audit.record(this.dataSource.manager, {
      organizationId: null,
      actorType: userId ? 'user' : 'anonymous',
      actorId: userId,
      action,
      targetType: userId ? 'user' : null,
      targetId: userId,
      metadata: { method: 'password', organizations, ...(action === 'sign_in.failed' ? { reason: userId ? 'wrong_password' : 'unknown_account' } : {}) },
      origin,
    });
  }

  /**
   * Changes the signed-in person's own password: the current one is checked under the same
   * failed-attempt limits as sign-in (a stolen session cannot guess it faster), then the new
   * hash is stored and every session issued before now ends, in one transaction with the
   * `password.changed` event. Answers a fresh session, so the browser or client that made the
   * change stays signed in while every other session is refused from its next request.
   */
  async changePassword(userId: string, input: ChangePasswordDto, origin: RequestOrigin): Promise<SessionToken> {
    const profile = await this.users.findById(userId);
    if (!profile) throw new NotFoundError('User');
    const ip = origin.ip ?? null;
    await this.limits.begin(profile.email, ip);
    const record = await this.users.loginRecord(profile.email);
    if (!record || record.id !== userId || !(await verifyPassword(input.currentPassword, record.passwordHash))) throw new WrongCurrentPasswordError();
    await this.limits.succeeded(profile.email, ip);
    const passwordHash = await hashPassword(input.newPassword);
    await this.dataSource.transaction(async (em) => {
      await this.users.setPassword(userId, passwordHash, em);
      await this.audit.record(em, {
        organizationId: null,
        actorType: 'user',
        actorId: userId,
        action: 'password.changed',
        targetType: 'user',
        targetId: userId,
        metadata: { otherSessionsEnded: true },
        origin,
      });
    });
    return this.sessions.issue(userId, origin);
  }

  /** The session's person and their organisations, sorted by what this session opens. */
  async me(session: SessionPrincipal): Promise<Me> {
    const user = await this.users.findById(session.userId);
    if (!user) throw new NotFoundError('User');
    const { open, closed } = await this.reach.sort(session, await this.organizations.listForMember(session.userId, 'joined'));
    return {
      user: { id: user.id, email: user.email, name: user.name, createdAt: user.createdAt.toISOString() },
      memberships: open.map((m) => ({ organization: { id: m.id, name: m.name }, role: m.role })),
      closedOrganizations: closed.map((m) => ({ id: m.id, name: m.name, role: m.role, refusal: m.refusal })),
    };
  }
}
