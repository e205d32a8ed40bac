import { html, HtmlPage, page } from '@app/web';

/** Where "Sign in again" leads: the sign-in page, keeping where the person was going. */
export function loginHref(next: string | undefined): string {
  return next && next !== '/' ? `/login?next=${encodeURIComponent(next)}` : '/login';
}

/** A single sign-on that could not finish: what happened, and the way back to the sign-in page. */
export function ssoErrorPage(message: string, next?: string): HtmlPage {
  return page(
    'Single sign-on failed',
    html`<div class="card" role="alert" aria-labelledby="error-title">
<h1 id="error-title">Single sign-on failed</h1>
<p id="sso-error">${message}</p>
<p><a href="${loginHref(next)}">Back to sign in</a></p>
</div>`,
  );
}

/**
 * `GET /auth/sso/start?email=…&next=…`: the form that starts single sign-on (a same-site POST with
 * its own CSRF token), never a redirect, so another site cannot start a sign-in by navigation.
 */
export function startPage(view: { email: string; next: string; csrfToken: string; error?: string }): HtmlPage {
  return page(
    'Continue with single sign-on',
    html`<div class="card">
<h1>Continue with single sign-on</h1>
${view.error ? html`<div class="error" role="alert" id="start-error">${view.error}</div>` : ''}
<form method="post" action="/auth/sso/start" novalidate>
<input type="hidden" name="sso_csrf_token" value="${view.csrfToken}">
<input type="hidden" name="next" value="${view.next}">
<label for="email">Email</label>
<input type="email" id="email" name="email" autocomplete="username" value="${view.email}" required>
<div class="actions"><button type="submit" class="primary">Continue with single sign-on</button></div>
</form>
<p class="muted"><a href="${loginHref(view.next)}">Back to sign in</a></p>
</div>`,
  );
}

/** The browser already holds a session of another account: asks before replacing it (SPEC §10). */
export function switchPage(view: { currentEmail: string; newEmail: string; csrfToken: string }): HtmlPage {
  return page(
    'Switch account?',
    html`<div class="card">
<h1>Switch account?</h1>
<p>This browser is signed in as <strong id="switch-current">${view.currentEmail}</strong>. Single sign-on has just signed you in as <strong id="switch-new">${view.newEmail}</strong>.</p>
<form method="post" action="/auth/sso/switch" novalidate>
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<div class="actions"><button type="submit" name="choice" value="switch" class="primary">Continue as ${view.newEmail}</button><button type="submit" name="choice" value="stay">Stay signed in as ${view.currentEmail}</button></div>
</form>
</div>`,
  );
}

export interface LinkView {
  email: string;
  issuerHost: string;
  csrfToken: string;
  error?: string;
}

/**
 * An account with the IdP's email exists and was made with a password: the person proves it is
 * theirs with that password, and confirms, before the IdP account is linked to it.
 */
export function linkPage(view: LinkView): HtmlPage {
  const invalid = view.error ? html` aria-describedby="link-error" aria-invalid="true"` : '';
  return page(
    'Link your account',
    html`<div class="card">
<h1>Link your account to single sign-on</h1>
${view.error ? html`<div class="error" role="alert" id="link-error">${view.error}</div>` : ''}
<p>An account for <strong>${view.email}</strong> already exists here, with a password. To use your organisation's single sign-on (${view.issuerHost}) with it from now on, sign in with that password once and confirm.</p>
<form method="post" action="/auth/sso/link" novalidate>
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<label for="password">Password of ${view.email}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${invalid}>
<div class="choice"><input type="checkbox" id="confirm" name="confirm" value="yes"${invalid}><label for="confirm">Link this account to ${view.issuerHost}: from now on I can sign in to it with single sign-on</label></div>
<div class="actions"><button type="submit" class="primary">Link and sign in</button></div>
</form>
<p class="muted"><a href="/login">Cancel</a>: nothing is linked.</p>
</div>`,
  );
}

/** A refused step-up (signing in again inside a session): what happened, its code, and the way back to the page that asked. */
export function stepUpErrorPage(message: string, code: string, returnTo: string): HtmlPage {
  return page(
    'Signing in again failed',
    html`<div class="card" role="alert" aria-labelledby="error-title">
<h1 id="error-title">Signing in again failed</h1>
<p id="sso-error">${message}</p>
<p class="muted">Reason: <code id="sso-error-code">${code}</code></p>
<p><a href="${returnTo}">Back</a></p>
</div>`,
  );
}
