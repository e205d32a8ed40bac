import { Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { IDP_SIGNING_ALGORITHMS, IdpMetadata, type IdentityProviderRecord } from '@app/identity';
import { idTokenRefusal, IdpUnreachableError, reachIdp, tokenEndpointRefusal } from './sso-relying-party.errors';
import { SsoSignInError } from './sso.errors';

/** Clock skew allowed on `exp`, `iat` and `nbf` of ID tokens. */
export const CLOCK_SKEW_SECONDS = 60;

/** The claims of a checked ID token (`iss`, `sub`, `aud`, `exp`, `iat` always there; the rest as the IdP sends them). */
export type IdTokenClaims = oidc.IDToken & Record<string, unknown>;

/** What the browser's state holds of one sign-in, and openid-client checks the answer against. */
export interface SignInChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * The OpenID Connect relying party of single sign-on, through openid-client 6: the authorization
 * URL (`buildAuthorizationUrl`: PKCE S256, `state`, `nonce`), and the callback's code exchange
 * (`authorizationCodeGrant`: `state`, `iss` per RFC 9207 where the IdP advertises it, the PKCE
 * verifier, the ID token's claims and `nonce`, its signature through `enableNonRepudiationChecks`
 * with the one list of accepted algorithms). Every request goes through the SSRF-safe fetcher
 * (`IdpMetadata.fetcherFor`, openid-client's `customFetch`); plain http only under the
 * development switch, where the issuer itself may use it.
 *
 * What stays ours, because openid-client has no notion of it: which redirect URI an organisation's
 * IdP answers on (per-IdP URIs, the shared legacy one), the state spent once on the server, the
 * tenant and verified-domain rules, linking accounts (`SsoCallbackChecks`, `SsoSignInService`).
 */
@Injectable()
export class SsoRelyingParty {
  constructor(private readonly metadata: IdpMetadata) {}

  /** The IdP's authorization URL for this sign-in. */
  async authorizationUrl(provider: IdentityProviderRecord, params: { redirectUri: string; scope: string; loginHint?: string; maxAge?: number; checks: SignInChecks }): Promise<string> {
    const config = await this.configuration(provider, null);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: params.redirectUri,
      scope: params.scope,
      state: params.checks.state,
      nonce: params.checks.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(params.checks.codeVerifier),
      code_challenge_method: 'S256',
      ...(params.loginHint ? { login_hint: params.loginHint } : {}),
      ...(params.maxAge !== undefined ? { max_age: String(params.maxAge) } : {}),
    });
    return url.href;
  }

  /**
   * The IdP's answer (arrived on `callbackUrl`, with its parameters) traded at its token endpoint
   * for a checked ID token. An IdP that cannot be reached or read is an outage (503); a refused
   * code or an ID token that fails a check is this sign-in's refusal (401). With `maxAge` (a
   * step-up's `max_age=0`), openid-client requires `auth_time` and checks its age
   * (`AuthTimeRefusal` otherwise).
   */
  async exchange(provider: IdentityProviderRecord, clientSecret: string, callbackUrl: URL, checks: SignInChecks, options: { maxAge?: number } = {}): Promise<IdTokenClaims> {
    const config = await this.configuration(provider, clientSecret);
    let tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        pkceCodeVerifier: checks.codeVerifier,
        idTokenExpected: true,
        ...(options.maxAge !== undefined ? { maxAge: options.maxAge } : {}),
      });
    } catch (error) {
      throw this.reported(tokenEndpointRefusal(error) ?? idTokenRefusal(error), provider.issuer);
    }
    const claims = tokens.claims() as IdTokenClaims | undefined;
    // Our column holds 255 characters of a subject; a longer one cannot be linked.
    if (!claims || claims.sub.length === 0 || claims.sub.length > 255) {
      throw new SsoSignInError('invalid_id_token', "The identity provider's ID token was refused: it has no usable subject (sub).");
    }
    return claims;
  }

  /**
   * openid-client's `Configuration` for the IdP: its discovered metadata (cached per issuer for
   * its HTTP lifetime by `IdpMetadata`), the client and how it authenticates (`client_secret_basic`,
   * or `client_secret_post` when the IdP lists only that), the accepted ID token algorithms.
   */
  private async configuration(provider: IdentityProviderRecord, clientSecret: string | null): Promise<oidc.Configuration> {
    const discovery = await reachIdp(this.metadata, provider.issuer, () => this.metadata.discovery(provider.issuer));
    const methods = discovery.token_endpoint_auth_methods_supported;
    const usePost = Array.isArray(methods) && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
    const auth = clientSecret === null ? oidc.None() : usePost ? oidc.ClientSecretPost(clientSecret) : oidc.ClientSecretBasic(clientSecret);
    const config = new oidc.Configuration(
      discovery as oidc.ServerMetadata,
      provider.clientId,
      {
        // oauth4webapi accepts a list here: the ID token's `alg` must be one of ours (never none, never HS*).
        id_token_signed_response_alg: [...IDP_SIGNING_ALGORITHMS] as unknown as string,
        [oidc.clockTolerance]: CLOCK_SKEW_SECONDS,
      },
      auth,
    );
    config[oidc.customFetch] = this.metadata.fetcherFor(provider.issuer);
    if (this.metadata.insecureAllowed()) oidc.allowInsecureRequests(config);
    oidc.enableNonRepudiationChecks(config);
    return config;
  }

  private reported(error: SsoSignInError, issuer: string): SsoSignInError {
    if (error instanceof IdpUnreachableError) this.metadata.reportFailure(error.failure, 'sign_in', issuer);
    return error;
  }
}
