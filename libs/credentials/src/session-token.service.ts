import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { AppConfig } from '@app/config';
import { CleanupScheduler, isUuid } from '@app/database';
import { UserDirectory } from '@app/tenancy';
import type { SessionPrincipal } from './principal';

/**
 * Session JWTs (HS256) for the dashboard and the login/consent pages. Each session has an id
 * (`jti`) and a fractional `iat`; a session is refused once it is signed out (its `jti` listed
 * as revoked) or when it was issued before its person's `sessions_not_before` ("sign out
 * everywhere", a used reset link). Both are checked in the one lookup that finds the person.
 */
@Injectable()
export class SessionTokenService implements OnModuleInit {
  private readonly key: Uint8Array;
  private readonly logger = new Logger('Sessions');

  constructor(
    private readonly config: AppConfig,
    private readonly users: UserDirectory,
    private readonly scheduler: CleanupScheduler,
  ) {
    this.key = new TextEncoder().encode(config.sessionSecret);
  }

  /** Signed-out session ids are forgotten once their sessions would have expired anyway. */
  onModuleInit(): void {
    this.scheduler.every('revoked-sessions-cleanup', () => this.users.forgetExpiredRevokedSessions(), this.logger);
  }

  async issue(userId: string): Promise<{ accessToken: string; tokenType: 'Bearer'; expiresIn: number }> {
    const expiresIn = this.config.sessionTtlSeconds;
    const accessToken = await new SignJWT({ typ: 'session' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.config.issuer)
      .setAudience(`${this.config.issuer}/api`)
      .setJti(randomUUID())
      .setIssuedAt(Date.now() / 1000)
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
    let jti: string | undefined;
    let iat: number | undefined;
    let exp: number | undefined;
    try {
      const { payload } = await jwtVerify(jwt, this.key, {
        algorithms: ['HS256'],
        issuer: this.config.issuer,
        audience: `${this.config.issuer}/api`,
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      });
      if (payload.typ !== 'session') return null;
      ({ sub, jti, iat, exp } = payload);
    } catch {
      return null;
    }
    if (!sub || !isUuid(sub) || !jti || !isUuid(jti) || typeof iat !== 'number' || typeof exp !== 'number') return null;
    if (!(await this.users.isSessionLive(sub, jti, iat))) return null;
    return { kind: 'session', userId: sub, sessionId: jti, expiresAt: new Date(exp * 1000) };
  }

  /** Signs this one session out: refused from now on, on every instance. */
  async end(session: SessionPrincipal): Promise<void> {
    await this.users.revokeSession(session.userId, session.sessionId, session.expiresAt);
  }

  /** Signs the person out everywhere: every session issued before now is refused. */
  async endAll(userId: string): Promise<void> {
    await this.users.endAllSessions(userId);
  }
}
