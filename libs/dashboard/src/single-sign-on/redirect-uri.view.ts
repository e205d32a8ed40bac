import type { IdentityProviderView } from '@app/identity';
import { html, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, sectionPath } from '../views/layout';

/** What the redirect-URI card shows: the organisation's own URI, and the shared one of a legacy IdP. */
export interface RedirectUriView {
  redirectUri: string;
  legacyUri: string;
}

/**
 * The redirect URI to register at the identity provider, shown before anything is connected
 * (SPEC §10). An IdP connected before per-IdP URIs still answers on the shared URI: both are
 * shown, with the button that stops accepting the shared one.
 */
export function redirectUriCard(ctx: DashboardContext, settings: IdentityProviderView | null, uris: RedirectUriView): SafeHtml {
  const legacy = settings?.legacyRedirectUri === true;
  return html`<section class="card" aria-labelledby="sso-redirect-title">
<h2 id="sso-redirect-title">Redirect URI</h2>
<dl>
<dt>Redirect URI to register at the identity provider</dt><dd><code id="sso-redirect-uri">${uris.redirectUri}</code></dd>
${legacy ? html`<dt>Shared redirect URI it was connected with</dt><dd><code id="sso-legacy-redirect-uri">${uris.legacyUri}</code></dd>` : ''}
</dl>
${legacy
  ? html`<p>This identity provider was connected when every organisation shared one redirect URI. Add this organisation's own URI above to the application at your identity provider, then confirm: from then on only that URI is accepted.</p>
<form method="post" action="${sectionPath(ctx.organization!.id, 'single-sign-on')}/redirect-uri">${csrfField(ctx)}
<div class="actions"><button type="submit" class="primary">I registered the new URI</button></div>
</form>`
  : html`<p class="hint">This URI is this organisation's alone: your identity provider sends people back to it, and answers arriving at any other are refused.</p>`}
</section>`;
}
