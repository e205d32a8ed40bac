import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { AppConfig } from '@app/config';

/**
 * CSRF defence for the HTML forms that run before anyone is signed in (signup): a signed
 * double-submit token. The page sets a random value in an HttpOnly, SameSite=Strict cookie scoped
 * to the form's path and puts HMAC(SESSION_SECRET, value) in a hidden field; the POST must carry
 * both, and they must match. A cross-site page can neither read the cookie nor compute the HMAC.
 * On top of it, a POST whose `Origin` header names another origin is refused.
 */
export class FormCsrf {
  static readonly FIELD = 'csrf';

  constructor(
    private readonly config: AppConfig,
    private readonly cookieName: string,
    private readonly path: string,
  ) {}

  /** Reuses the visitor's cookie when present (several tabs keep working), else sets a new one. */
  issue(req: Request, res: Response): string {
    let value = this.cookie(req);
    if (!value) {
      value = randomBytes(32).toString('base64url');
      res.cookie(this.cookieName, value, {
        httpOnly: true,
        sameSite: 'strict',
        secure: this.config.baseUrl.startsWith('https://'),
        path: this.path,
        maxAge: 2 * 60 * 60 * 1000,
      });
    }
    return this.sign(value);
  }

  verify(req: Request, submitted: unknown): boolean {
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== new URL(this.config.baseUrl).origin) return false;
    const value = this.cookie(req);
    if (!value || typeof submitted !== 'string') return false;
    const expected = Buffer.from(this.sign(value));
    const given = Buffer.from(submitted);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private cookie(req: Request): string | undefined {
    const value = (req.cookies as Record<string, unknown> | undefined)?.[this.cookieName];
    return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
  }

  private sign(value: string): string {
    return createHmac('sha256', this.config.sessionSecret).update(`form-csrf:${this.path}:${value}`).digest('base64url');
  }
}
