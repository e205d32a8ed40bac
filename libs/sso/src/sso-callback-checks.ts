import { Injectable } from '@nestjs/common';
import { SsoRedirectUris, SsoStateDirectory, type IdentityProviderRecord } from '@app/identity';
import type { SignInState } from './sso-cookies';
import { ERROR_CODE, SsoSignInError } from './sso.errors';

/**
 * What an IdP's answer must pass before its code goes anywhere, and openid-client does not know:
 * the browser's state (bound by our cookie), the redirect URI it arrived on (the state's IdP's
 * own, RFC 9700 §4.4), the state spent once on the server (login CSRF, every instance), and the
 * rules of the shared legacy URI (SPEC §10). openid-client then checks `state` and `iss` (RFC 9207)
 * again with the code exchange.
 */
@Injectable()
export class SsoCallbackChecks {
  constructor(
    private readonly states: SsoStateDirectory,
    private readonly redirectUris: SsoRedirectUris,
  ) {}

  /** The answer's code, once every check of the answer itself passed (`null` state: no cookie, expired or not ours). */
  async answer(state: SignInState | null, query: { state?: string; code?: string; error?: string; iss?: string }, arrivedOn: string): Promise<{ code: string; state: SignInState }> {
    if (!state) {
      throw new SsoSignInError(
        'sso_state_missing',
        'This sign-in was not started in this browser, or it took longer than 10 minutes. Start again from the sign-in page.',
        'invalid_input',
      );
    }
    if (!query.state || query.state !== state.state) {
      throw new SsoSignInError('sso_state_mismatch', 'This answer of the identity provider does not belong to the sign-in this browser started (state mismatch). Start again.', 'invalid_input');
    }
    if (query.error !== undefined) {
      const code = ERROR_CODE.test(query.error) ? query.error : 'error';
      throw new SsoSignInError('idp_error', `The identity provider did not sign you in (${code}).`, 'unauthenticated');
    }
    // A code is accepted only on the redirect URI of the IdP the state names: another IdP's
    // answer never reaches this IdP's token endpoint.
    if (arrivedOn !== state.redirectUri) {
      throw new SsoSignInError(
        'sso_redirect_uri_mismatch',
        "This answer arrived at another identity provider's redirect URI than the one this sign-in started with. Start again.",
        'invalid_input',
      );
    }
    // Single use on the server: the first valid presentation spends it, on whichever instance.
    if (!(await this.states.spend(state.state))) {
      throw new SsoSignInError('sso_state_used', 'This sign-in answer was already used, or it took longer than 10 minutes. Start again from the sign-in page.', 'invalid_input');
    }
    if (!query.code) throw new SsoSignInError('sso_code_missing', 'The identity provider sent no authorization code.', 'invalid_input');
    return { code: query.code, state };
  }

  /**
   * The shared redirect URI serves only IdPs still flagged as connected before per-IdP URIs. (Its
   * `iss` rule of SPEC §10, `iss` required whenever the issuer advertises sending it, is
   * openid-client's on every redirect URI: RFC 9207.)
   */
  legacyUri(provider: IdentityProviderRecord, arrivedOn: string): void {
    if (arrivedOn !== this.redirectUris.legacyUri) return;
    if (!provider.legacyRedirectUri) {
      throw new SsoSignInError(
        'sso_redirect_uri_mismatch',
        "This identity provider answers on its organisation's own redirect URI now, not on the shared one. Start again.",
        'invalid_input',
      );
    }
  }
}
