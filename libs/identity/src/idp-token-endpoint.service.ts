import { Inject, Injectable, Optional } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { safeFetch, systemResolver } from '@app/outbound';
import { IdentityProviderError } from './identity.errors';
import { IDP_FETCH_OPTIONS, IdpMetadata, type IdpFetchOverrides } from './idp-metadata.service';

export interface CodeExchange {
  code: string;
  codeVerifier: string;
  redirectUri: string;
  clientId: string;
  clientSecret: string;
}

/** An error code as an IdP may send it; anything else is not repeated to the person. */
const ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The authorization code exchange at an issuer's token endpoint (from its discovery document),
 * through the same SSRF-safe fetcher as the discovery document and key set. The client
 * authenticates with `client_secret_basic`, or `client_secret_post` when the IdP lists only that.
 * Answers the ID token; nothing of the answer (tokens, the secret) goes into an error.
 */
@Injectable()
export class IdpTokenEndpoint {
  constructor(
    private readonly config: AppConfig,
    private readonly metadata: IdpMetadata,
    @Optional() @Inject(IDP_FETCH_OPTIONS) private readonly overrides?: IdpFetchOverrides,
  ) {}

  async exchangeCode(issuer: string, exchange: CodeExchange): Promise<{ idToken: string }> {
    const discovery = await this.metadata.discovery(issuer);
    const methods = discovery.token_endpoint_auth_methods_supported;
    const usePost = Array.isArray(methods) && !methods.includes('client_secret_basic') && methods.includes('client_secret_post');
    const form: Record<string, string> = {
      grant_type: 'authorization_code',
      code: exchange.code,
      redirect_uri: exchange.redirectUri,
      code_verifier: exchange.codeVerifier,
    };
    const headers: Record<string, string> = {};
    if (usePost) {
      form.client_id = exchange.clientId;
      form.client_secret = exchange.clientSecret;
    } else {
      const basic = `${encodeURIComponent(exchange.clientId)}:${encodeURIComponent(exchange.clientSecret)}`;
      headers.Authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    }
    const answer = await safeFetch(new URL(discovery.token_endpoint), {
      resolve: this.overrides?.resolve ?? systemResolver,
      open: this.overrides?.open,
      allowLoopback: this.config.identityProviderAllowLoopback,
      allowHosts: this.config.outboundAllowHosts,
      timeoutMs: this.overrides?.timeoutMs ?? 10_000,
      maxBytes: 256 * 1024,
      form,
      headers,
      acceptStatuses: [200, 400, 401],
      wording: {
        host: "The identity provider's host",
        document: "The identity provider's token endpoint",
        plural: "identity providers' endpoints",
        userAgent: 'agent-gateway identity-provider-fetcher',
        error: (message) => new IdentityProviderError('identity_provider_unreachable', message, 'unavailable'),
      },
    });
    let body: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(answer.body) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      // answered below
    }
    if (answer.status !== 200) {
      const code = typeof body.error === 'string' && ERROR_CODE.test(body.error) ? body.error : `HTTP ${answer.status}`;
      throw new IdentityProviderError('code_exchange_refused', `The identity provider refused the sign-in code (${code})`, 'unauthenticated');
    }
    if (typeof body.id_token !== 'string' || body.id_token.length === 0) {
      throw new IdentityProviderError('no_id_token', "The identity provider's token endpoint answered no ID token", 'unauthenticated');
    }
    return { idToken: body.id_token };
  }
}
