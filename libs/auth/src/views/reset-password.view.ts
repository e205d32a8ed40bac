import { PASSWORD_MIN_LENGTH } from '@app/people';
import { html, HtmlPage, page } from '@app/web';

/** The form where the holder of a reset link sets a new password. */
export function resetPasswordPage(token: string, error?: string): HtmlPage {
  return page(
    'Set a new password',
    html`<div class="card">
<h1>Set a new password</h1>
${error ? html`<div class="summary" role="alert"><p>${error}</p></div>` : ''}
<form method="post" action="/reset-password">
  <input type="hidden" name="token" value="${token}">
  <label for="password">New password</label>
  <p class="hint" id="password-hint">At least ${PASSWORD_MIN_LENGTH} characters. Every session of this account ends when you save it.</p>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="1024" aria-describedby="password-hint">
  <div class="actions"><button type="submit" class="primary">Save the new password</button></div>
</form>
</div>`,
  );
}

export function resetLinkInvalidPage(): HtmlPage {
  return page(
    'This link no longer works',
    html`<div class="card">
<h1>This link no longer works</h1>
<p>A password-reset link works once, for an hour. Ask an administrator of your organisation for a new one.</p>
</div>`,
  );
}

export function passwordChangedPage(): HtmlPage {
  return page(
    'Password changed',
    html`<div class="card">
<h1>Password changed</h1>
<p>Your new password is set and every earlier session has ended. <a href="/login">Sign in</a> with it.</p>
</div>`,
  );
}
