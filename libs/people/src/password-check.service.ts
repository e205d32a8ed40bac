import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hashPassword, passwordNeedsRehash, UserDirectory, verifyPassword } from '@app/tenancy';
import { LoginAttemptLimits } from './login-attempt-limits.service';
import { InvalidLoginError } from './people.errors';

/**
 * The one check of an email and a password, for every sign-in by password: the password sign-in
 * of `auth`, linking an existing account to single sign-on in `sso`, and signing in again inside
 * a session. An unknown email costs the same Argon2id work as a wrong password and gets the same
 * error, so neither timing nor message tells them apart; past the failed-attempt limits
 * (`LoginAttemptLimits`) it throws `TooManyLoginAttemptsError` without looking at the password.
 * A hash made with an older algorithm or weaker parameters is re-made from the password now.
 */
@Injectable()
export class PasswordCheck {
  /** A hash of a random password, verified against when the email is unknown (same Argon2id work). */
  private decoyHash: Promise<string> | undefined;

  constructor(
    private readonly limits: LoginAttemptLimits,
    private readonly users: UserDirectory,
  ) {}

  /** The account's id when the password is right; `InvalidLoginError` otherwise. Opens no session. */
  async check(email: string, password: string, ip: string | null): Promise<string> {
    await this.limits.begin(email, ip);
    const user = await this.users.loginRecord(email);
    const ok = await verifyPassword(password, user?.passwordHash ?? (await this.decoy()));
    if (!user || !ok) throw new InvalidLoginError();
    await this.limits.succeeded(email, ip);
    if (passwordNeedsRehash(user.passwordHash)) {
      await this.users.replacePasswordHash(user.id, user.passwordHash, await hashPassword(password));
    }
    return user.id;
  }

  private decoy(): Promise<string> {
    // A failed first attempt (the hashing queue was full) is not kept: the next call tries again.
    this.decoyHash ??= hashPassword(randomBytes(24).toString('base64url')).catch((error: unknown) => {
      this.decoyHash = undefined;
      throw error;
    });
    return this.decoyHash;
  }
}
