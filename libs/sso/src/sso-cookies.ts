import { hkdfSync } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import { EncryptJWT, jwtDecrypt, type JWTPayload } from 'jose';
import type { AppConfig } from '@app/config';
import { SSO_SIGN_IN_COOKIES } from '@app/web';
import type { MembershipRole } from '@app/tenancy';

/** How long a started sign-in (and a pending link) stays usable. */
export const SSO_STATE_TTL_SECONDS = 10 * 60;

/** What the browser carries between `/auth/sso/start` and `/auth/sso/callback`. */
export interface SignInState {
  state: string;
  nonce: string;
  codeVerifier: string;
  organizationId: string;
  issuer: string;
  /** The redirect URI the authorization request named: the callback must arrive there. */
  redirectUri: string;
  next: string;
  /** A step-up of this session (SPEC §10): it refreshes the session's sign-in and opens no new one. */
  stepUp?: StepUpBinding;
}

/** The session a step-up refreshes, and its person. */
export interface StepUpBinding {
  sessionId: string;
  userId: string;
}

/** What the browser carries to `/auth/sso/link`: the IdP account waiting to be linked to an existing account. */
export interface PendingLink {
  userId: string;
  organizationId: string;
  issuer: string;
  subject: string;
  next: string;
  /** The role the groups claim maps to, when the IdP sent the configured groups claim. */
  groupsRole: MembershipRole | null;
  /** The role a new membership gets (groups claim or the default role). */
  role: MembershipRole;
  /** The ID token's tenant (`tenant` or `tid`), recorded at an admin's sign-in. */
  tenant?: string | null;
}

interface CookieKind {
  name: string;
  path: string;
  purpose: string;
}

/** Names and paths are those sign-out clears (`SSO_SIGN_IN_COOKIES` of `@app/credentials`). */
export const STATE_COOKIE: CookieKind = { ...SSO_SIGN_IN_COOKIES.state, purpose: 'sso-state' };
export const LINK_COOKIE: CookieKind = { ...SSO_SIGN_IN_COOKIES.link, purpose: 'sso-link' };
export const SWITCH_COOKIE: CookieKind = { ...SSO_SIGN_IN_COOKIES.switch, purpose: 'sso-switch' };

/** A finished single sign-on waiting for the person to confirm it may replace the browser's session of another account. */
export interface PendingSwitch {
  accessToken: string;
  next: string;
}

/**
 * The browser-bound state of a single sign-on: an encrypted JWT (`dir`, A256GCM, a key derived
 * from SESSION_SECRET for this purpose alone) in an HttpOnly `SameSite=Lax` cookie scoped to the
 * one path that reads it, so the PKCE verifier and nonce are neither readable nor forgeable, and
 * a callback arriving in another browser finds nothing. Every instance with the same secret reads it.
 */
export class SsoCookies {
  private readonly secure: boolean;

  constructor(private readonly config: Pick<AppConfig, 'baseUrl' | 'sessionSecret' | 'issuer'>) {
    this.secure = config.baseUrl.startsWith('https://');
  }

  async set<T extends object>(res: Response, kind: CookieKind, value: T): Promise<void> {
    const jwt = await new EncryptJWT({ v: value } as unknown as JWTPayload)
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setIssuedAt()
      .setAudience(kind.purpose)
      .setExpirationTime(`${SSO_STATE_TTL_SECONDS}s`)
      .encrypt(this.key(kind));
    res.cookie(kind.name, jwt, { ...this.options(kind), maxAge: SSO_STATE_TTL_SECONDS * 1000 });
  }

  /** The cookie's value, or null when absent, expired, or not made by this service for this purpose. */
  async read<T>(req: Request, kind: CookieKind): Promise<T | null> {
    const raw = (req.cookies as Record<string, unknown> | undefined)?.[kind.name];
    if (typeof raw !== 'string' || raw.length === 0 || raw.length > 4096) return null;
    try {
      const { payload } = await jwtDecrypt(raw, this.key(kind), {
        audience: kind.purpose,
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256GCM'],
        requiredClaims: ['exp'],
      });
      return (payload.v as T | undefined) ?? null;
    } catch {
      return null;
    }
  }

  clear(res: Response, kind: CookieKind): void {
    res.clearCookie(kind.name, this.options(kind));
  }

  private options(kind: CookieKind): CookieOptions {
    return { httpOnly: true, sameSite: 'lax', secure: this.secure, path: kind.path };
  }

  private key(kind: CookieKind): Uint8Array {
    return new Uint8Array(hkdfSync('sha256', this.config.sessionSecret, 'agent-gateway', `sso-cookie:${kind.purpose}`, 32));
  }
}
