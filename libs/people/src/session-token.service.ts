import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { AppConfig } from '@app/config';
import { CleanupScheduler, isUuid } from '@app/database';
import { MembershipDirectory, SessionDirectory, SessionRecord, UserDirectory } from '@app/tenancy';
import type { SessionPrincipal } from './session-principal';

/** The session JWT's claim naming the identity provider's issuer of a single sign-on (absent for a password sign-in). */
export const SSO_ISSUER_CLAIM = 'sso_iss';

/** How much of a browser's User-Agent a session's record keeps. */
export const USER_AGENT_MAX = 200;

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
    private readonly records: SessionDirectory,
    private readonly memberships: MembershipDirectory,
  ) {
    this.key = new TextEncoder().encode(config.sessionSecret);
  }

  /**
   * Signed-out session ids and expired sessions are forgotten once their sessions would have
   * expired anyway, and so are the membership endings no live session predates (SPEC §10).
   */
  onModuleInit(): void {
    this.scheduler.every(
      'revoked-sessions-cleanup',
      async () => (await this.users.forgetExpiredRevokedSessions()) + (await this.records.deleteExpired()) + (await this.memberships.forgetSettledEndings()),
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
   * or a deleted user.
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
    const email = await this.users.liveSessionEmail(sub, jti, iat);
    if (email === null) return null;
    return { kind: 'session', userId: sub, sessionId: jti, expiresAt: new Date(exp * 1000), email, ssoIssuer: typeof ssoIssuer === 'string' ? ssoIssuer : null };
  }

  /** Signs this one session out: refused from now on, on every instance. */
  async end(session: SessionPrincipal): Promise<void> {
    await this.users.revokeSession(session.userId, session.sessionId, session.expiresAt);
  }

  /** The person's sessions that still work, newest first (at most 50). */
  async list(userId: string): Promise<SessionRecord[]> {
    return this.records.listLive(userId);
  }

  /**
   * Signs out one of the person's own listed sessions (as `end`: its `jti` listed as revoked, which
   * the session check already reads, so no extra query per request). False if they have none with that id.
   */
  async endOwn(userId: string, sessionId: string): Promise<boolean> {
    if (!isUuid(sessionId)) return false;
    const expiresAt = await this.records.expiryOfOwn(userId, sessionId);
    if (!expiresAt) return false;
    await this.users.revokeSession(userId, sessionId, expiresAt);
    return true;
  }

  /** Signs the person out everywhere: every session issued before now is refused. */
  async endAll(userId: string): Promise<void> {
    await this.users.endAllSessions(userId);
  }
}
