import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { AppConfig } from '@app/config';
import { CleanupScheduler, isUuid } from '@app/database';
import { MembershipDirectory, SessionDirectory, SessionRecord } from '@app/tenancy';
import type { SessionPrincipal } from './session-principal';

/** The session JWT's claim naming the identity provider's issuer of a single sign-on (absent for a password sign-in). */
export const SSO_ISSUER_CLAIM = 'sso_iss';

/** How much of a browser's User-Agent a session's record keeps. */
export const USER_AGENT_MAX = 200;

/**
 * Session JWTs (HS256) for the dashboard and the login/consent pages. Each session's id (`jti`)
 * is its `sessions` row, and the JWT's `exp` is the row's: a session is live while its row exists
 * and has not expired by the database's clock (SPEC §10), checked in the one lookup that finds
 * the person. Every way a session ends deletes its row.
 */
@Injectable()
export class SessionTokenService implements OnModuleInit {
  private readonly key: Uint8Array;
  private readonly logger = new Logger('Sessions');

  constructor(
    private readonly config: AppConfig,
    private readonly scheduler: CleanupScheduler,
    private readonly records: SessionDirectory,
    private readonly memberships: MembershipDirectory,
  ) {
    this.key = new TextEncoder().encode(config.sessionSecret);
  }

  /** Expired sessions are forgotten, and so are the membership endings no live session predates (SPEC §10). */
  onModuleInit(): void {
    this.scheduler.every(
      'sessions-cleanup',
      async () => (await this.records.deleteExpired()) + (await this.memberships.forgetSettledEndings()),
      this.logger,
    );
  }

  /**
   * A new session for the person, recorded (its `jti`, when, until when, and a short description
   * of the browser: its User-Agent cut to `USER_AGENT_MAX` characters and the client IP as the
   * app sees it) for their list of sessions. `ssoIssuer`: the identity provider's issuer when the
   * person signed in through single sign-on (the JWT's `sso_iss` claim and the record's
   * `sso_issuer`); absent or null for a password sign-in. It decides which organisations the
   * session opens (`SessionReach`).
   */
  async issue(
    userId: string,
    origin: { ip?: string | null; userAgent?: string | null } = {},
    options: { ssoIssuer?: string | null } = {},
  ): Promise<{ accessToken: string; tokenType: 'Bearer'; expiresIn: number }> {
    const ssoIssuer = options.ssoIssuer ?? null;
    if (ssoIssuer === '') throw new Error('A single sign-on session needs its issuer');
    const expiresIn = this.config.sessionTtlSeconds;
    const jti = randomUUID();
    const issuedAt = Date.now() / 1000;
    const expiresAt = Math.floor(issuedAt) + expiresIn;
    await this.records.record(userId, {
      id: jti,
      createdAt: new Date(issuedAt * 1000),
      expiresAt: new Date(expiresAt * 1000),
      userAgent: origin.userAgent ? origin.userAgent.slice(0, USER_AGENT_MAX) : null,
      ip: origin.ip ?? null,
      ssoIssuer,
    });
    const accessToken = await new SignJWT(ssoIssuer === null ? { typ: 'session' } : { typ: 'session', [SSO_ISSUER_CLAIM]: ssoIssuer })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.config.issuer)
      .setAudience(`${this.config.issuer}/api`)
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.key);
    return { accessToken, tokenType: 'Bearer', expiresIn };
  }

  /**
   * The session's person, or null for a bad signature, an expired token, a token without `exp`,
   * `iat` or `sub` (SPEC §8: a session never lives forever, even one signed with the real key),
   * or a session whose row is gone or expired (signed out, ended, never issued) or whose person is deleted.
   */
  async resolve(jwt: string): Promise<SessionPrincipal | null> {
    let sub: string | undefined;
    let jti: string | undefined;
    let iat: number | undefined;
    let exp: number | undefined;
    let ssoIssuer: unknown;
    try {
      const { payload } = await jwtVerify(jwt, this.key, {
        algorithms: ['HS256'],
        issuer: this.config.issuer,
        audience: `${this.config.issuer}/api`,
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      });
      if (payload.typ !== 'session') return null;
      ({ sub, jti, iat, exp } = payload);
      ssoIssuer = payload[SSO_ISSUER_CLAIM];
    } catch {
      return null;
    }
    if (!sub || !isUuid(sub) || !jti || !isUuid(jti) || typeof iat !== 'number' || typeof exp !== 'number') return null;
    if (ssoIssuer !== undefined && (typeof ssoIssuer !== 'string' || ssoIssuer === '')) return null;
    const email = await this.records.liveSessionEmail(sub, jti);
    if (email === null) return null;
    return { kind: 'session', userId: sub, sessionId: jti, expiresAt: new Date(exp * 1000), email, ssoIssuer: typeof ssoIssuer === 'string' ? ssoIssuer : null };
  }

  /** Signs this one session out: its row goes, so it is refused from now on, on every instance. */
  async end(session: SessionPrincipal): Promise<void> {
    await this.records.forget(session.userId, session.sessionId);
  }

  /** The person's sessions that still work, newest first (at most 50). */
  async list(userId: string): Promise<SessionRecord[]> {
    return this.records.listLive(userId);
  }

  /** Signs out one of the person's own live sessions (as `end`). False if they have none with that id. */
  async endOwn(userId: string, sessionId: string): Promise<boolean> {
    if (!isUuid(sessionId)) return false;
    return this.records.forget(userId, sessionId);
  }

  /** Signs the person out everywhere: every session issued before now goes. */
  async endAll(userId: string): Promise<void> {
    await this.records.forgetAllBeforeNow(userId);
  }
}
