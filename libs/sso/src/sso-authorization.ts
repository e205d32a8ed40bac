import { Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { SsoRedirectUris, SsoStateDirectory, type IdentityProviderRecord } from '@app/identity';
import { SSO_STATE_TTL_SECONDS, type SignInState, type StepUpBinding } from './sso-cookies';
import { SsoRelyingParty } from './sso-relying-party';
import { signInScope, type StartedSignIn } from './sso-sign-in.parts';

/**
 * The authorization code request to an organisation's identity provider (PKCE S256, `state`,
 * `nonce`, made by openid-client), on the IdP's own redirect URI, or the shared one for an IdP
 * connected before per-IdP redirect URIs (SPEC §10; ours: openid-client knows one redirect URI per
 * client), and the state the browser must carry back, recorded once on the server. A step-up asks
 * with `max_age=0` and marks its state with the session it refreshes.
 */
@Injectable()
export class SsoAuthorization {
  constructor(
    private readonly relyingParty: SsoRelyingParty,
    private readonly redirectUris: SsoRedirectUris,
    private readonly states: SsoStateDirectory,
  ) {}

  async request(provider: IdentityProviderRecord, next: string, options: { loginHint?: string; stepUp?: StepUpBinding } = {}): Promise<StartedSignIn> {
    const redirectUri = provider.legacyRedirectUri ? this.redirectUris.legacyUri : await this.redirectUris.uriFor(provider.organizationId);
    const state: SignInState = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      organizationId: provider.organizationId,
      issuer: provider.issuer,
      redirectUri,
      next,
      ...(options.stepUp ? { stepUp: options.stepUp } : {}),
    };
    const authorizationUrl = await this.relyingParty.authorizationUrl(provider, {
      redirectUri,
      scope: signInScope(provider.scopes),
      checks: state,
      ...(options.loginHint ? { loginHint: options.loginHint } : {}),
      // OpenID Connect Core §3.1.2.1: the IdP must sign the person in again and send auth_time.
      ...(options.stepUp ? { maxAge: 0 } : {}),
    });
    await this.states.record(state.state, provider.organizationId, SSO_STATE_TTL_SECONDS, options.stepUp?.sessionId ?? null);
    return { authorizationUrl, state };
  }
}
