import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { AppConfig } from '@app/config';

const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Whether the browser marks a form post as coming from another site than `ownOrigin`:
 * `Sec-Fetch-Site` other than `same-origin` (or `none`, a navigation the person started), or an
 * `Origin` naming another origin. `Origin: null` tells nothing (see `FormCsrf`). Every form post of
 * the pages checks this: the pre-sign-in forms through `FormCsrf`, the consent form directly.
 */
export function postedFromElsewhere(req: Request, ownOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.headers.origin;
  return origin !== undefined && origin !== 'null' && origin !== ownOrigin;
}

/**
 * CSRF defence for the HTML forms shown before anyone is signed in (sign-in, sign-up), where no
 * session exists to tie a token to: a signed double-submit token. The page sets a random value in
 * an HttpOnly, SameSite=Strict cookie scoped to the form's path and puts
 * HMAC-SHA256(SESSION_SECRET, path and value) in a hidden field; the POST must carry both, and
 * they must match. A page elsewhere can neither read the cookie nor compute the HMAC, nor plant a
 * cookie of its own choosing that would match a token it knows. On top of that, a POST a browser
 * marks as coming from elsewhere is refused: `Sec-Fetch-Site` other than `same-origin` (or `none`,
 * a navigation the person started), or an `Origin` naming another origin.
 *
 * `Origin: null` is not refused: the pages send `Referrer-Policy: no-referrer`, and under that
 * policy browsers send `Origin: null` on every form post, our own included, so `null` tells
 * nothing. `Sec-Fetch-Site`, which the referrer policy does not touch, still says where the post
 * came from (browsers send it to https and localhost origins).
 *
 * Stateless: every instance sharing SESSION_SECRET accepts the tokens of the others.
 */
export class FormCsrf {
  private readonly origin: string;
  private readonly secure: boolean;

  constructor(
    private readonly config: Pick<AppConfig, 'baseUrl' | 'sessionSecret'>,
    /** The cookie's name and the path of the form it guards (the cookie is sent only there). */
    private readonly form: { cookie: string; path: string },
  ) {
    this.origin = new URL(config.baseUrl).origin;
    this.secure = config.baseUrl.startsWith('https://');
  }

  /** The token for the form's hidden field. Reuses the visitor's cookie when present (several tabs keep working), else sets a new one. */
  issue(req: Request, res: Response): string {
    let value = this.cookie(req);
    if (!value) {
      value = randomBytes(32).toString('base64url');
      res.cookie(this.form.cookie, value, {
        httpOnly: true,
        sameSite: 'strict',
        secure: this.secure,
        path: this.form.path,
        maxAge: 2 * 60 * 60 * 1000,
      });
    }
    return this.sign(value);
  }

  /** Whether a POST carries the cookie and the matching token, and does not come from another site. */
  verify(req: Request, submitted: unknown): boolean {
    if (this.fromElsewhere(req)) return false;
    const value = this.cookie(req);
    if (!value || typeof submitted !== 'string') return false;
    const expected = Buffer.from(this.sign(value));
    const given = Buffer.from(submitted);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Drops the cookie once the form has done its job. */
  clear(res: Response): void {
    res.clearCookie(this.form.cookie, { path: this.form.path });
  }

  private fromElsewhere(req: Request): boolean {
    return postedFromElsewhere(req, this.origin);
  }

  private cookie(req: Request): string | undefined {
    const value = (req.cookies as Record<string, unknown> | undefined)?.[this.form.cookie];
    return typeof value === 'string' && COOKIE_VALUE.test(value) ? value : undefined;
  }

  private sign(value: string): string {
    return createHmac('sha256', this.config.sessionSecret).update(`form-csrf:${this.form.path}:${value}`).digest('base64url');
  }
}
