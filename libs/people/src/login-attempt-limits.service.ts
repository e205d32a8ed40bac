import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '@app/config';
import { RateLimitRule, RateLimitService } from '@app/rate-limit';
import { normalizeEmail } from '@app/tenancy';
import { TooManyLoginAttemptsError } from './people.errors';

/**
 * The limits on password guessing, shared by every place a password is checked (sign-in over
 * REST and the page, linking an account to single sign-on, a password change, signing in again
 * inside a session), counted in the database (`RateLimitService`) so every instance shares them.
 *
 * Per (lower-cased) email *and* client IP, so failures from one address lock that email at that
 * address only and a third party cannot lock a person out of their usual address; per email
 * across every address, a higher ceiling against guessing spread over many addresses; and per
 * client IP, against one address spraying many emails. An attempt is counted *before* the
 * password is checked, so parallel guesses cannot overrun a limit; a successful check then clears
 * the email's counters and takes its hit back from the IP's, so the counts are in effect failed
 * attempts. The email is counted whether or not an account has it (otherwise a 429 would reveal
 * which emails exist), and is stored only as a SHA-256 digest.
 */
@Injectable()
export class LoginAttemptLimits {
  constructor(
    private readonly config: AppConfig,
    private readonly rateLimits: RateLimitService,
  ) {}

  /** Counts a login attempt; throws `TooManyLoginAttemptsError` (429) when a limit is already reached. */
  async begin(email: string, ip: string | null): Promise<void> {
    const windowSeconds = this.config.loginFailureWindowSeconds;
    const local: RateLimitRule[] = [{ key: loginEmailIpKey(email, ip), limit: this.config.loginMaxFailuresPerEmailAndIp, windowSeconds }];
    if (ip) local.push({ key: loginIpKey(ip), limit: this.config.loginMaxFailuresPerIp, windowSeconds });
    const atAddress = await this.rateLimits.consume(local);
    if (!atAddress.allowed) throw new TooManyLoginAttemptsError(atAddress.retryAfterSeconds);
    // Only attempts the address's own limits let through reach the email's ceiling, so one
    // address hammering a locked pair cannot push the email towards a lock-out everywhere.
    const overall = await this.rateLimits.consume([{ key: loginEmailKey(email), limit: this.config.loginMaxFailuresPerEmail, windowSeconds }]);
    if (!overall.allowed) throw new TooManyLoginAttemptsError(overall.retryAfterSeconds);
  }

  /** The password was right: the email starts afresh and the IP's count drops by this attempt. */
  async succeeded(email: string, ip: string | null): Promise<void> {
    await this.rateLimits.reset(loginEmailKey(email));
    await this.rateLimits.reset(loginEmailIpKey(email, ip));
    if (ip) await this.rateLimits.release(loginIpKey(ip));
  }
}

/** Counter keys (exported for tests that inspect the counters). */
export function loginEmailKey(email: string): string {
  return `login:email:${createHash('sha256').update(normalizeEmail(email)).digest('hex')}`;
}

/** One email from one address (`-` when the address is unknown), digested like the email alone. */
export function loginEmailIpKey(email: string, ip: string | null): string {
  return `login:email-ip:${createHash('sha256').update(`${normalizeEmail(email)}\n${ip ?? '-'}`).digest('hex')}`;
}

export function loginIpKey(ip: string): string {
  return `login:ip:${ip}`;
}
