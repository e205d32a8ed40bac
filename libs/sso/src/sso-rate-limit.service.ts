import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { RateLimitService } from '@app/rate-limit';
import { TooManySsoAttemptsError } from './sso.errors';

const MINUTE = 60;

/**
 * The limits on `GET /auth/sso/start` and `GET /auth/sso/callback` per client address: each start
 * reads the identity provider's discovery, each callback makes a token request to it, so a flood
 * from one address must not turn the service into a relay against the IdP. Counted in the
 * database (`RateLimitService`, fixed windows) so every instance shares them; every request counts,
 * whatever its outcome (a request whose address is unknown is not counted, as with sign-up).
 */
@Injectable()
export class SsoRateLimitService {
  constructor(
    private readonly config: AppConfig,
    private readonly rateLimits: RateLimitService,
  ) {}

  /** Counts a start from `ip`; throws `TooManySsoAttemptsError` (429) past `SSO_STARTS_PER_IP_PER_MINUTE`. */
  async countStart(ip: string | null): Promise<void> {
    if (ip) await this.count(`sso-start:ip:${ip}`, this.config.ssoStartsPerIpPerMinute);
  }

  /** Counts a callback from `ip`; throws `TooManySsoAttemptsError` (429) past `SSO_CALLBACKS_PER_IP_PER_MINUTE`. */
  async countCallback(ip: string | null): Promise<void> {
    if (ip) await this.count(`sso-callback:ip:${ip}`, this.config.ssoCallbacksPerIpPerMinute);
  }

  private async count(key: string, limit: number): Promise<void> {
    const decision = await this.rateLimits.consume([{ key, limit, windowSeconds: MINUTE }]);
    if (!decision.allowed) throw new TooManySsoAttemptsError(decision.retryAfterSeconds);
  }
}
