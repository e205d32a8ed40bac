import { html, HtmlPage, page } from '@app/web';

export interface LoginView {
  next: string;
  csrfToken: string;
  /** The token of `POST /auth/sso/start`, which the single sign-on button posts the form to. */
  ssoCsrfToken: string;
  email?: string;
  error?: string;
  signupHref?: string;
  /** `/auth/sso/start?…` when the email's domain is claimed (verified) by an organisation with single sign-on. */
  ssoHref?: string;
  /** A notice above the form (not an error): single sign-on is not set up for the email, say. */
  notice?: string;
}

/**
 * Email first, then the password; posts to /login and continues to `next` (a path on this
 * service). "Continue with single sign-on" (a second button of the same form) posts the email to
 * `POST /auth/sso/start` (with that form's token, a same-site POST: SPEC §10), which sends it to
 * single sign-on when its domain is claimed by an organisation; once the page knows the email
 * and its domain is claimed, it links straight to `/auth/sso/start`.
 */
export function loginPage(view: LoginView): HtmlPage {
  return page(
    'Sign in',
    html`<div class="card">
<h1>Sign in to Agent Gateway</h1>
${view.error ? html`<div class="error" role="alert" id="login-error">${view.error}</div>` : ''}
${view.notice ? html`<div class="notice" role="status" id="login-notice">${view.notice}</div>` : ''}
${view.ssoHref ? html`<div class="notice" id="sso-offer"><p>Your organisation signs you in with its identity provider.</p><p><a href="${view.ssoHref}">Continue with single sign-on</a></p></div>` : ''}
<form method="post" action="/login" novalidate>
<input type="hidden" name="next" value="${view.next}">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<input type="hidden" name="sso_csrf_token" value="${view.ssoCsrfToken}">
<label for="email">Email</label>
<input type="email" id="email" name="email" autocomplete="username" required value="${view.email ?? ''}"${view.error ? html` aria-describedby="login-error" aria-invalid="true"` : ''}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${view.error ? html` aria-describedby="login-error" aria-invalid="true"` : ''}>
<div class="actions"><button type="submit" class="primary">Sign in</button><button type="submit" name="sso" value="continue" formaction="/auth/sso/start" formnovalidate>Continue with single sign-on</button></div>
</form>
${view.signupHref ? html`<p class="muted">No account yet? <a href="${view.signupHref}">Create one</a>.</p>` : ''}
</div>`,
  );
}
