import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { IdpMetadata, SsoRedirectUris, SsoStateDirectory, type IdentityProviderRecord } from '@app/identity';
import { SSO_STATE_TTL_SECONDS, type SignInState, type StepUpBinding } from './sso-cookies';
import { reachIdp, signInScope, type StartedSignIn } from './sso-sign-in.parts';

/**
 * The authorization code request to an organisation's identity provider (PKCE S256, `state`,
 * `nonce`, on the IdP's own redirect URI, or the shared one for an IdP connected before per-IdP
 * redirect URIs: SPEC §10), and the state the browser must carry back, recorded once on the
 * server. A step-up asks with `max_age=0` and marks its state with the session it refreshes.
 */
@Injectable()
export class SsoAuthorization {
  constructor(
    private readonly metadata: IdpMetadata,
    private readonly redirectUris: SsoRedirectUris,
    private readonly states: SsoStateDirectory,
  ) {}

  async request(provider: IdentityProviderRecord, next: string, options: { loginHint?: string; stepUp?: StepUpBinding } = {}): Promise<StartedSignIn> {
    const discovery = await reachIdp(() => this.metadata.discovery(provider.issuer));
    const redirectUri = provider.legacyRedirectUri ? this.redirectUris.legacyUri : await this.redirectUris.uriFor(provider.organizationId);
    const codeVerifier = randomBytes(32).toString('base64url');
    const state: SignInState = {
      state: randomBytes(32).toString('base64url'),
      nonce: randomBytes(32).toString('base64url'),
      codeVerifier,
      organizationId: provider.organizationId,
      issuer: provider.issuer,
      redirectUri,
      next,
      ...(options.stepUp ? { stepUp: options.stepUp } : {}),
    };
    const url = new URL(discovery.authorization_endpoint);
    const params = {
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: redirectUri,
      scope: signInScope(provider.scopes),
      state: state.state,
      nonce: state.nonce,
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...(options.loginHint ? { login_hint: options.loginHint } : {}),
      // OpenID Connect Core §3.1.2.1: the IdP must sign the person in again and send auth_time.
      ...(options.stepUp ? { max_age: '0' } : {}),
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    await this.states.record(state.state, provider.organizationId, SSO_STATE_TTL_SECONDS, options.stepUp?.sessionId ?? null);
    return { authorizationUrl: url.href, state };
  }
}
