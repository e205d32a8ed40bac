import { PASSWORD_MIN_LENGTH } from '@app/people';
import { html, HtmlPage, page } from '@app/web';

export type SignupField = 'email' | 'name' | 'password' | 'organizationName';

export interface SignupFormState {
  csrf: string;
  next: string | undefined;
  values: Partial<Record<Exclude<SignupField, 'password'>, string>>;
  /** Per field, what is wrong with it. */
  errors: Partial<Record<SignupField, string>>;
  /** The email's domain signs in with single sign-on (SPEC §10): where to start it for that address. */
  ssoStartHref?: string;
  /** A problem not tied to one field. */
  formError?: string;
  /** Signing up from an invitation link: its secret and what it joins (no organisation is created). */
  invitation?: { token: string; organizationName: string; role: string; email: string };
}

const FIELDS: { id: SignupField; label: string; type: string; autocomplete: string; hint?: string; maxlength: number; minlength?: number }[] = [
  { id: 'name', label: 'Your name', type: 'text', autocomplete: 'name', maxlength: 200 },
  { id: 'email', label: 'Email', type: 'email', autocomplete: 'email', maxlength: 254 },
  {
    id: 'password',
    label: 'Password',
    type: 'password',
    autocomplete: 'new-password',
    hint: `At least ${PASSWORD_MIN_LENGTH} characters.`,
    maxlength: 1024,
    minlength: PASSWORD_MIN_LENGTH,
  },
  {
    id: 'organizationName',
    label: 'Organisation name',
    type: 'text',
    autocomplete: 'organization',
    hint: 'The name of the new organisation this creates; you become its administrator.',
    maxlength: 200,
  },
];

export function signupPage(state: SignupFormState): HtmlPage {
  const fields = state.invitation ? FIELDS.filter((f) => f.id !== 'organizationName') : FIELDS;
  const problems = fields.filter((f) => state.errors[f.id]).map((f) => ({ id: f.id, message: state.errors[f.id]! }));
  const loginHref = loginLink(state);
  return page(
    'Create your account',
    html`<div class="card">
<h1>Create your account</h1>
${
  state.invitation
    ? html`<p>You are invited to join <strong>${state.invitation.organizationName}</strong> as ${state.invitation.role}.</p>
<p class="muted" id="invitation-account">Already have an account? <a href="${loginHref}">Sign in</a> to accept the invitation with it.</p>`
    : html`<p id="new-organisation">This creates a <strong>new organisation</strong>, with you as its administrator. To join an organisation that already exists, ask one of its administrators for an invitation link and open it.</p>`
}
${
  problems.length || state.formError
    ? html`<div class="summary" role="alert" aria-labelledby="summary-title" tabindex="-1">
  <h2 id="summary-title">There is a problem</h2>
  ${state.formError ? html`<p>${state.formError}</p>` : ''}
  ${problems.length ? html`<ul>${problems.map((p) => html`<li><a href="#${p.id}">${p.message}</a></li>`)}</ul>` : ''}
</div>`
    : ''
}
<form method="post" action="/signup">
  <input type="hidden" name="csrf" value="${state.csrf}">
  ${state.next ? html`<input type="hidden" name="next" value="${state.next}">` : ''}
  ${state.invitation ? html`<input type="hidden" name="invitation" value="${state.invitation.token}">` : ''}
  ${fields.map((f) => {
    const error = state.errors[f.id];
    const describedBy = [f.hint ? `${f.id}-hint` : '', error ? `${f.id}-error` : ''].filter(Boolean).join(' ');
    const value = f.id === 'password' ? '' : (state.values[f.id] ?? '');
    return html`
  <label for="${f.id}">${f.label}</label>
  ${f.hint ? html`<p class="hint" id="${f.id}-hint">${f.hint}</p>` : ''}
  ${
    error
      ? html`<p class="field-error" id="${f.id}-error">${error}${
          f.id === 'email' && state.ssoStartHref ? html` <a href="${state.ssoStartHref}">Continue with single sign-on</a>` : ''
        }</p>`
      : ''
  }
  <input id="${f.id}" name="${f.id}" type="${f.type}" autocomplete="${f.autocomplete}" required maxlength="${f.maxlength}"${
    f.minlength ? html` minlength="${f.minlength}"` : ''
  }${value ? html` value="${value}"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${
    error ? html` aria-invalid="true"` : ''
  }>`;
  })}
  <div class="actions"><button type="submit" class="primary">Create account</button></div>
</form>
<p class="muted">Already have an account? <a href="${loginHref}">Sign in</a></p>
</div>`,
  );
}

/** Sign-in instead: back to `next`, or, from an invitation link, to the page that accepts it as the signed-in account. */
function loginLink(state: SignupFormState): string {
  const next = state.invitation ? invitationAcceptPath(state.invitation.token) : state.next;
  return next ? `/login?next=${encodeURIComponent(next)}` : '/login';
}

/** The dashboard page where a signed-in person sees an invitation and accepts it. */
export function invitationAcceptPath(token: string): string {
  return `/invitation?token=${encodeURIComponent(token)}`;
}

export function signupDisabledPage(): HtmlPage {
  return page(
    'Sign-up is closed',
    html`<div class="card">
<h1>Sign-up is closed</h1>
<p>Accounts on this service are created by an administrator. If you already have one, <a href="/login">sign in</a>.</p>
</div>`,
  );
}

export function invitationInvalidPage(): HtmlPage {
  return page(
    'This invitation no longer works',
    html`<div class="card">
<h1>This invitation no longer works</h1>
<p>An invitation link works once and for seven days, and an administrator may withdraw it. Ask the person who invited you for a new one.</p>
</div>`,
  );
}
