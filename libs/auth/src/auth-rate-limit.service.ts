import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '@app/config';
import { RateLimitRule, RateLimitService } from '@app/rate-limit';
import { normalizeEmail } from '@app/tenancy';
import { TooManyLoginAttemptsError, TooManySignupsError } from './auth.errors';

const HOUR = 3600;

/**
 * The limits on password guessing and sign-up floods, shared by the REST routes and the HTML
 * pages, counted in the database (`RateLimitService`) so every instance shares them.
 *
 * Login: per (lower-cased) email and per client IP. An attempt is counted *before* the password
 * is checked, so parallel guesses cannot overrun the limit; a successful login then clears the
 * email's counter and takes its hit back from the IP's, so the counts are in effect failed
 * attempts. The email is counted whether or not an account has it (otherwise a 429 would
 * reveal which emails exist), and is stored only as a SHA-256 digest.
 */
@Injectable()
export class AuthRateLimitService {
  constructor(
    private readonly config: AppConfig,
    private readonly rateLimits: RateLimitService,
  ) {}

  /** Counts a login attempt; throws `TooManyLoginAttemptsError` (429) when a limit is already reached. */
  async beginLogin(email: string, ip: string | null): Promise<void> {
    const windowSeconds = this.config.loginFailureWindowSeconds;
    const rules: RateLimitRule[] = [{ key: loginEmailKey(email), limit: this.config.loginMaxFailuresPerEmail, windowSeconds }];
    if (ip) rules.push({ key: loginIpKey(ip), limit: this.config.loginMaxFailuresPerIp, windowSeconds });
    const decision = await this.rateLimits.consume(rules);
    if (!decision.allowed) throw new TooManyLoginAttemptsError(decision.retryAfterSeconds);
  }

  /** The login succeeded: the email starts afresh and the IP's count drops by this attempt. */
  async loginSucceeded(email: string, ip: string | null): Promise<void> {
    await this.rateLimits.reset(loginEmailKey(email));
    if (ip) await this.rateLimits.release(loginIpKey(ip));
  }

  /** Counts a sign-up from `ip`; throws `TooManySignupsError` (429) past the hourly limit. */
  async countSignup(ip: string | null): Promise<void> {
    if (!ip) return;
    const decision = await this.rateLimits.consume([{ key: `signup:ip:${ip}`, limit: this.config.signupRateLimitPerHour, windowSeconds: HOUR }]);
    if (!decision.allowed) throw new TooManySignupsError(decision.retryAfterSeconds);
  }
}

/** Counter keys (exported for tests that inspect the counters). */
export function loginEmailKey(email: string): string {
  return `login:email:${createHash('sha256').update(normalizeEmail(email)).digest('hex')}`;
}

export function loginIpKey(ip: string): string {
  return `login:ip:${ip}`;
}
