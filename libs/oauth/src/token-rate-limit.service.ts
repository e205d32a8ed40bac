import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '@app/config';
import { RateLimitService } from '@app/rate-limit';
import { OAuthError } from './oauth.errors';
import { parseBasicCredentials, singleParam } from './oauth-params';

/** Who a token or revocation request says it comes from, read before anything is checked. */
export interface TokenRequester {
  /** The `client_id` of the body or of HTTP Basic, as sent (not yet authenticated). */
  clientId: string | undefined;
  /** Whether the request carries a client secret (body or HTTP Basic): a confidential client's authentication. */
  secretPresented: boolean;
  ip: string | null;
}

/** The endpoints `TokenRateLimit` guards, with the prefix of their per-(client, address) counter. */
const ENDPOINTS = {
  token: { key: 'oauth-token', requests: 'token requests' },
  revoke: { key: 'oauth-revoke', requests: 'revocation requests' },
} as const;
type Endpoint = keyof typeof ENDPOINTS;

/**
 * The token and revocation endpoints' limits, on the database counters every instance shares
 * (`RateLimitService`).
 *
 * - Failed requests per (client_id, client IP), one counter per endpoint: read before the
 *   request is handled and counted once it has failed (an OAuth error, or a revocation that
 *   ended nothing; not the database being unavailable). Past `TOKEN_MAX_FAILURES_PER_CLIENT_AND_IP` (token)
 *   or `REVOCATION_MAX_FAILURES_PER_CLIENT_AND_IP` (revoke) in `TOKEN_FAILURE_WINDOW_SECONDS`,
 *   that address gets 429 for that client at that endpoint until the window ends. A revocation
 *   succeeds when its token was one the caller may revoke; an unknown token or another client's
 *   counts as a failure (the answer is 200 either way, RFC 7009 §2.2). A success writes
 *   nothing, so a hosted client refreshing for many people from one address never queues on
 *   one counter row; the price is that failures in flight together are counted only after
 *   each has passed the check (a limit against guessing 256-bit tokens loses nothing by it).
 * - Per client alone, only failed authentication of a confidential client (a wrong secret), at
 *   either endpoint, on one counter: past `TOKEN_MAX_AUTH_FAILURES_PER_CLIENT`, a failed
 *   authentication answers 429 instead of 401. A request that authenticates, or that carries a
 *   valid code or refresh token of a public client, is never refused for failures counted
 *   elsewhere: registered client ids are public and a metadata-document client id is shared by
 *   every user of that client.
 */
@Injectable()
export class TokenRateLimit {
  constructor(
    private readonly config: AppConfig,
    private readonly rateLimits: RateLimitService,
  ) {}

  /** Runs a token request inside the limits; throws 429 `temporarily_unavailable` with `Retry-After` past them. */
  around<T>(requester: TokenRequester, handle: () => Promise<T>): Promise<T> {
    return this.limited('token', this.config.tokenMaxFailuresPerClientAndIp, requester, handle, () => true);
  }

  /**
   * Runs a revocation request inside the limits; `handle` answers whether the token was one the
   * caller may revoke (a success). Throws 429 `temporarily_unavailable` with `Retry-After` past them.
   */
  async aroundRevocation(requester: TokenRequester, handle: () => Promise<boolean>): Promise<void> {
    await this.limited('revoke', this.config.revocationMaxFailuresPerClientAndIp, requester, handle, (recognised) => recognised);
  }

  private async limited<T>(endpoint: Endpoint, limit: number, requester: TokenRequester, handle: () => Promise<T>, succeeded: (result: T) => boolean): Promise<T> {
    const { key, requests } = ENDPOINTS[endpoint];
    const pairRule = requester.ip
      ? [{ key: `${key}:client-ip:${digest(requester.clientId)}:${requester.ip}`, limit, windowSeconds: this.config.tokenFailureWindowSeconds }]
      : [];
    const decision = await this.rateLimits.check(pairRule);
    if (!decision.allowed) throw tooManyFailures(decision.retryAfterSeconds, requests, 'from this address for this client');
    let result: T;
    try {
      result = await handle();
    } catch (error) {
      if (error instanceof OAuthError) {
        await this.rateLimits.consume(pairRule);
        if (error.error === 'invalid_client' && requester.secretPresented && requester.clientId) {
          await this.clientAuthenticationFailed(requester.clientId, requests);
        }
      }
      throw error;
    }
    if (!succeeded(result)) await this.rateLimits.consume(pairRule);
    return result;
  }

  private async clientAuthenticationFailed(clientId: string, requests: string): Promise<void> {
    const decision = await this.rateLimits.consume([
      {
        key: `oauth-token:client-auth:${digest(clientId)}`,
        limit: this.config.tokenMaxAuthFailuresPerClient,
        windowSeconds: this.config.tokenFailureWindowSeconds,
      },
    ]);
    if (!decision.allowed) throw tooManyFailures(decision.retryAfterSeconds, requests, 'to authenticate as this client');
  }
}

/** Who a token or revocation request's body and `Authorization` header say it comes from. */
export function tokenRequester(body: Record<string, unknown>, authorizationHeader: string | undefined, ip: string | null): TokenRequester {
  const basic = authorizationHeader && /^Basic\b/i.test(authorizationHeader) ? parseBasicCredentials(authorizationHeader) : undefined;
  const bodyClientId = singleParam(body, 'client_id').value;
  return {
    clientId: bodyClientId ?? basic?.clientId,
    secretPresented: basic !== undefined || singleParam(body, 'client_secret').value !== undefined,
    ip,
  };
}

function digest(clientId: string | undefined): string {
  return createHash('sha256').update(clientId ?? '').digest('hex');
}

function tooManyFailures(retryAfterSeconds: number, requests: string, what: string): OAuthError {
  return new OAuthError('temporarily_unavailable', `Too many failed ${requests} ${what}; retry in ${retryAfterSeconds} s`, {
    retryAfterSeconds,
  });
}
