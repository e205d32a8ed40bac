import type { CookieOptions, Request, Response } from 'express';
import type { AppConfig } from '@app/config';

/** The cookie that carries the session JWT for the HTML pages (login, signup, consent). */
export const SESSION_COOKIE = 'ag_session';

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
  res.cookie(SESSION_COOKIE, jwt, cookieOptions(config));
}

export function clearSessionCookie(res: Response, config: AppConfig): void {
  const { maxAge: _maxAge, ...options } = cookieOptions(config);
  res.clearCookie(SESSION_COOKIE, options);
}

/** The session JWT from the cookie (cookie-parser runs in configureApp), or undefined. */
export function readSessionCookie(req: Request): string | undefined {
  const value = (req.cookies as Record<string, unknown> | undefined)?.[SESSION_COOKIE];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * Where to go after login: only a path on this service (`/…`, never `//host` or a URL), so the
 * login page cannot be used as an open redirect.
 */
export function safeNextPath(next: unknown, fallback = '/'): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback;
  if (/[\r\n]/.test(next)) return fallback;
  return next;
}
