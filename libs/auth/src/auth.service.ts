import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SessionTokenService } from '@app/credentials';
import { NotFoundError } from '@app/common';
import type { MembershipRole } from '@app/organizations';
import { hashPassword, verifyPassword } from '@app/users';
import { InvalidLoginError } from './auth.errors';
import { normalizeEmail } from './email';
import { AuthRateLimitService } from './auth-rate-limit.service';

export interface SessionToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

export interface Me {
  user: { id: string; email: string; name: string; createdAt: string };
  memberships: { organization: { id: string; name: string }; role: MembershipRole }[];
}

/** Password login and the session's own view of itself. */
@Injectable()
export class AuthService {
  /** A hash of a random password, verified against when the email is unknown (same scrypt work). */
  private decoyHash: Promise<string> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sessions: SessionTokenService,
    private readonly limits: AuthRateLimitService,
  ) {}

  /**
   * A session JWT for the right email and password. An unknown email costs the same scrypt
   * work as a wrong password and gets the same error, so neither timing nor message tells them apart.
   * Every login path goes through here: past the failed-attempt limits (per email and per `ip`)
   * it throws `TooManyLoginAttemptsError` without looking at the password.
   */
  async login(email: string, password: string, ip: string | null): Promise<SessionToken & { userId: string }> {
    await this.limits.beginLogin(email, ip);
    const rows: { id: string; password_hash: string }[] = await this.dataSource.query(
      'SELECT id, password_hash FROM users WHERE lower(email) = $1',
      [normalizeEmail(email)],
    );
    const user = rows[0];
    const ok = await verifyPassword(password, user?.password_hash ?? (await this.decoy()));
    if (!user || !ok) throw new InvalidLoginError();
    await this.limits.loginSucceeded(email, ip);
    return { ...(await this.sessions.issue(user.id)), userId: user.id };
  }

  async me(userId: string): Promise<Me> {
    const users: { id: string; email: string; name: string; created_at: Date }[] = await this.dataSource.query(
      'SELECT id, email, name, created_at FROM users WHERE id = $1',
      [userId],
    );
    const user = users[0];
    if (!user) throw new NotFoundError('User');
    const memberships: { id: string; name: string; role: MembershipRole }[] = await this.dataSource.query(
      `SELECT o.id, o.name, m.role
         FROM memberships m JOIN organizations o ON o.id = m.organization_id
        WHERE m.user_id = $1
        ORDER BY m.created_at, o.id`,
      [userId],
    );
    return {
      user: { id: user.id, email: user.email, name: user.name, createdAt: new Date(user.created_at).toISOString() },
      memberships: memberships.map((m) => ({ organization: { id: m.id, name: m.name }, role: m.role })),
    };
  }

  private decoy(): Promise<string> {
    this.decoyHash ??= hashPassword(randomBytes(24).toString('base64url'));
    return this.decoyHash;
  }
}
