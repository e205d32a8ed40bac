import { Injectable } from '@nestjs/common';
import { jwtVerify, SignJWT } from 'jose';
import { AppConfig } from '@app/config';
import { isUuid } from '@app/database';
import { UserDirectory } from '@app/tenancy';
import type { SessionPrincipal } from './principal';

/** Session JWTs (HS256) for the dashboard and the login/consent pages. */
@Injectable()
export class SessionTokenService {
  private readonly key: Uint8Array;

  constructor(
    private readonly config: AppConfig,
    private readonly users: UserDirectory,
  ) {
    this.key = new TextEncoder().encode(config.sessionSecret);
  }

  async issue(userId: string): Promise<{ accessToken: string; tokenType: 'Bearer'; expiresIn: number }> {
    const expiresIn = this.config.sessionTtlSeconds;
    const accessToken = await new SignJWT({ typ: 'session' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.config.issuer)
      .setAudience(`${this.config.issuer}/api`)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + expiresIn)
      .sign(this.key);
    return { accessToken, tokenType: 'Bearer', expiresIn };
  }

  /**
   * The session's person, or null for a bad signature, an expired token, a token without `exp`,
   * `iat` or `sub` (SPEC §8: a session never lives forever, even one signed with the real key),
   * or a deleted user.
   */
  async resolve(jwt: string): Promise<SessionPrincipal | null> {
    let sub: string | undefined;
    try {
      const { payload } = await jwtVerify(jwt, this.key, {
        algorithms: ['HS256'],
        issuer: this.config.issuer,
        audience: `${this.config.issuer}/api`,
        requiredClaims: ['exp', 'iat', 'sub'],
      });
      if (payload.typ !== 'session') return null;
      sub = payload.sub;
    } catch {
      return null;
    }
    if (!sub || !isUuid(sub)) return null;
    return (await this.users.exists(sub)) ? { kind: 'session', userId: sub } : null;
  }
}
