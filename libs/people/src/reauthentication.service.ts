import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { DomainError, NotFoundError } from '@app/common';
import { RecentSignIn } from './recent-sign-in';
import type { SessionPrincipal } from './session-principal';
import { UserDirectory } from '@app/tenancy';
import { PasswordCheck } from './password-check.service';
import { InvalidLoginError } from './people.errors';

/**
 * Signing in again inside a session, for the changes that need a recent sign-in (SPEC §10):
 * the password, checked under the same failed-attempt limits as sign-in, refreshes the session's
 * `authenticated_at` (database clock), audited `session.reauthenticated`. A single sign-on
 * session is refreshed by signing in again through its identity provider, never by a password.
 */
@Injectable()
export class ReauthenticationService {
  constructor(
    private readonly passwords: PasswordCheck,
    private readonly users: UserDirectory,
    private readonly recent: RecentSignIn,
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async withPassword(session: SessionPrincipal, password: string, origin: RequestOrigin): Promise<void> {
    if (session.ssoIssuer) {
      throw new DomainError('reauthenticate_with_sso', 'This session was opened through single sign-on: sign in again through your identity provider (/auth/sso/step-up, in a browser)');
    }
    const profile = await this.users.findById(session.userId);
    if (!profile) throw new NotFoundError('User');
    const userId = await this.passwords.check(profile.email, password, origin.ip ?? null);
    if (userId !== session.userId) throw new InvalidLoginError();
    if (!(await this.recent.refresh(session.userId, session.sessionId))) {
      throw new DomainError('session_not_recorded', 'This session has no sign-in record: sign out and sign in again', 'unauthenticated');
    }
    await this.audit.record(this.dataSource.manager, {
      organizationId: null,
      actorType: 'user',
      actorId: session.userId,
      action: 'session.reauthenticated',
      targetType: 'session',
      targetId: session.sessionId,
      metadata: { method: 'password' },
      origin,
    });
  }
}
