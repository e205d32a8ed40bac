import { Injectable } from '@nestjs/common';
import { DomainError, HTTP_STATUS_OF_KIND } from '@app/common';
import { reauthenticatePath, ReauthenticationRequiredError, RecentSignIn, ReauthenticationService } from '@app/people';
import { html, SafeHtml } from '@app/web';
import type { DashboardContext } from './dashboard-context';
import { fieldError, invalid } from './views/field-error';

/** Refusals of the password shown at the field (an empty text: the error's own message). */
const PASSWORD_ERRORS: Record<string, string> = {
  invalid_credentials: 'That is not your password',
  reauthenticate_with_sso: '',
  too_many_login_attempts: '',
};

/** What a page shows at its recent-sign-in field when the change was refused: the status and the sentence. */
export class RecentSignInRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RecentSignInRefusal';
  }
}

/** The IdP a single sign-on session signs in again with, as the pages name it (its host). */
function idpName(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return 'your identity provider';
  }
}

/**
 * The pages' side of a change that needs a sign-in of the last 15 minutes (SPEC §10; the
 * approval page, the policy page, the audit sinks pages): the password, when the form carries
 * one, re-authenticates first; then the session must have signed in within 15 minutes. A single
 * sign-on session is refreshed by the step-up link instead (`recentSignInField`).
 */
@Injectable()
export class PageRecentSignIn {
  constructor(
    private readonly recent: RecentSignIn,
    private readonly reauthentication: ReauthenticationService,
  ) {}

  /**
   * Throws `RecentSignInRefusal` (a sentence beginning with `what`, e.g. "Changing the policy",
   * for an old sign-in; a wrong password; too many attempts); other errors go on unchanged.
   */
  async require(ctx: DashboardContext, password: string | undefined, what: string, organizationId = ctx.organization?.id): Promise<void> {
    try {
      if (password) await this.reauthentication.withPassword(ctx.principal, password, ctx.actor.origin ?? {});
      await this.recent.require(ctx.principal, organizationId);
    } catch (error) {
      if (error instanceof ReauthenticationRequiredError) {
        const how = ctx.principal.ssoIssuer ? `sign in again with ${idpName(ctx.principal.ssoIssuer)}` : 'enter your password';
        throw new RecentSignInRefusal(401, `${what} needs a sign-in within the last 15 minutes: ${how}`);
      }
      const onPassword = error instanceof DomainError ? PASSWORD_ERRORS[error.code] : undefined;
      if (onPassword !== undefined) throw new RecentSignInRefusal(HTTP_STATUS_OF_KIND[(error as DomainError).kind], onPassword || (error as Error).message);
      throw error;
    }
  }
}

/**
 * The recent-sign-in field of a form: for a password session, the password (`asked`: the page
 * asked for it, so the label drops "needed when…"); for a single sign-on session, the link that
 * signs in again through its IdP and comes back to `returnTo` (`newTab`: the form holds typed
 * text that going away would lose). `error`: the refusal shown at the field.
 */
export function recentSignInField(
  ctx: DashboardContext,
  view: { id: string; returnTo: string; organizationId: string; error?: string; asked?: boolean; newTab?: boolean },
): SafeHtml {
  const { id, error } = view;
  const issuer = ctx.principal.ssoIssuer;
  const when = view.asked ? '' : ' (needed when you signed in more than 15 minutes ago)';
  if (issuer) {
    const href = reauthenticatePath('sso', { organizationId: view.organizationId, returnTo: view.returnTo });
    return html`${error ? html`<p class="field-error" id="${id}-error" role="alert">${error}</p>` : ''}
<p id="${id}"><a href="${href}"${view.newTab ? html` target="_blank" rel="noopener"` : ''}>Sign in again with ${idpName(issuer)}</a>${when}${view.newTab ? ', then submit here' : ''}</p>`;
  }
  return html`<label for="${id}">Your password${when}</label>
${fieldError(id, error)}
<input id="${id}" name="password" type="password" autocomplete="current-password"${error ? html` aria-describedby="${id}-error"` : ''}${invalid(error)}>`;
}
