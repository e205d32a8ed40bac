import type { CookieOptions, Request, Response } from 'express';
import type { AppConfig } from '@app/config';

/** The cookie that carries the session JWT for the HTML pages (sign-in, sign-up, consent, dashboard). */
export const SESSION_COOKIE = 'ag_session';
/**
 * Its name on https: the `__Host-` prefix makes the browser refuse it unless it is `Secure`,
 * has `Path=/` and no `Domain`, so no sibling subdomain can plant or shadow it.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The session cookie's name for this deployment: `__Host-ag_session` on https, `ag_session` on plain http (development). */
export function sessionCookieName(config: Pick<AppConfig, 'baseUrl'>): string {
  return config.baseUrl.startsWith('https://') ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

function cookieOptions(config: AppConfig): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.baseUrl.startsWith('https://'),
    path: '/',
    maxAge: config.sessionTtlSeconds * 1000,
  };
}

export function setSessionCookie(res: Response, jwt: string, config: AppConfig): void {
  res.cookie(sessionCookieName(config), jwt, cookieOptions(config));
}

export function clearSessionCookie(res: Response, config: AppConfig): void {
  const { maxAge: _maxAge, ...options } = cookieOptions(config);
  res.clearCookie(sessionCookieName(config), options);
}

/** The session JWT from the deployment's session cookie (cookie-parser runs in configureApp), or undefined. */
export function readSessionCookie(req: Request, config: Pick<AppConfig, 'baseUrl'>): string | undefined {
  const value = (req.cookies as Record<string, unknown> | undefined)?.[sessionCookieName(config)];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * Where to go after sign-in or sign-up: only a path on this service, so the pages cannot be used
 * as an open redirect. `next` must start with one `/`, hold no control character (C0, DEL: a
 * browser drops TAB, CR and LF, so `/\t/evil.example` would become `//evil.example`) and no
 * backslash (read as `/` by browsers), and, resolved against `baseUrl`, keep its origin. The
 * answer is the resolved path, query and fragment, as a browser would follow it.
 */
export function safeNextPath(next: unknown, baseUrl: string, fallback = '/'): string {
  if (typeof next !== 'string' || next.length > 2048 || !next.startsWith('/') || next.startsWith('//')) return fallback;
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return fallback;
  let resolved: URL;
  try {
    resolved = new URL(next, baseUrl);
  } catch {
    return fallback;
  }
  if (resolved.origin !== new URL(baseUrl).origin) return fallback;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/**
 * The browser-bound cookies of a single sign-on in progress, each scoped to the one path that
 * reads it (`libs/sso`): the state of a sign-in (`state`, `nonce`, PKCE verifier) and an IdP account
 * waiting to be linked to an existing account. Sign-out clears them with the session cookie
 * (`clearSignInCookies`); the identity provider's own session is not ended here.
 */
export const SSO_SIGN_IN_COOKIES = {
  state: { name: 'ag_sso_state', path: '/auth/sso/callback' },
  link: { name: 'ag_sso_link', path: '/auth/sso/link' },
  switch: { name: 'ag_sso_switch', path: '/auth/sso/switch' },
} as const;

/**
 * The CSRF cookie of the forms that start single sign-on (`POST /auth/sso/start`): the sign-in
 * page's form and the start page carry its token (`sso_csrf_token`), `FormCsrf` of `@app/web`.
 */
export const SSO_START_FORM = { cookie: 'ag_sso_start_csrf', path: '/auth/sso/start' } as const;

/** Sign-out's cookies: the session cookie and any single sign-on state the browser holds. */
export function clearSignInCookies(res: Response, config: AppConfig): void {
  clearSessionCookie(res, config);
  const { maxAge: _maxAge, ...options } = cookieOptions(config);
  for (const cookie of Object.values(SSO_SIGN_IN_COOKIES)) res.clearCookie(cookie.name, { ...options, path: cookie.path });
}
