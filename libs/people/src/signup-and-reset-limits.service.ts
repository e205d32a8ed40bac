import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { RateLimitService } from '@app/rate-limit';
import { TooManyResetAttemptsError, TooManySignupsError } from './account.errors';

const HOUR = 3600;

/**
 * The limits on sign-up floods and on password-reset links, shared by the REST routes and the
 * HTML pages, counted in the database (`RateLimitService`) so every instance shares them. The
 * limits on password guessing are `LoginAttemptLimits`.
 */
@Injectable()
export class SignupAndResetLimits {
  constructor(
    private readonly config: AppConfig,
    private readonly rateLimits: RateLimitService,
  ) {}

  /**
   * Counts a use of a password-reset link from `ip` (REST and page alike), under the login's
   * per-address limit and window: each attempt presents a secret, as a login does. Throws
   * `TooManyResetAttemptsError` (429) past it.
   */
  async countPasswordReset(ip: string | null): Promise<void> {
    if (!ip) return;
    const decision = await this.rateLimits.consume([
      { key: `reset:ip:${ip}`, limit: this.config.loginMaxFailuresPerIp, windowSeconds: this.config.loginFailureWindowSeconds },
    ]);
    if (!decision.allowed) throw new TooManyResetAttemptsError(decision.retryAfterSeconds);
  }

  /** Counts a sign-up from `ip`; throws `TooManySignupsError` (429) past the hourly limit. */
  async countSignup(ip: string | null): Promise<void> {
    if (!ip) return;
    const decision = await this.rateLimits.consume([{ key: `signup:ip:${ip}`, limit: this.config.signupRateLimitPerHour, windowSeconds: HOUR }]);
    if (!decision.allowed) throw new TooManySignupsError(decision.retryAfterSeconds);
  }
}
