import { html, HtmlPage, page } from '@app/web';

export interface LoginView {
  next: string;
  csrfToken: string;
  email?: string;
  error?: string;
  signupHref?: string;
}

/** Email and password form; posts to /login and continues to `next` (a path on this service). */
export function loginPage(view: LoginView): HtmlPage {
  return page(
    'Sign in',
    html`<div class="card">
<h1>Sign in to Agent Gateway</h1>
${view.error ? html`<div class="error" role="alert" id="login-error">${view.error}</div>` : ''}
<form method="post" action="/login" novalidate>
<input type="hidden" name="next" value="${view.next}">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<label for="email">Email</label>
<input type="email" id="email" name="email" autocomplete="username" required value="${view.email ?? ''}"${view.error ? html` aria-describedby="login-error" aria-invalid="true"` : ''}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${view.error ? html` aria-describedby="login-error" aria-invalid="true"` : ''}>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
${view.signupHref ? html`<p class="muted">No account yet? <a href="${view.signupHref}">Create one</a>.</p>` : ''}
</div>`,
  );
}
