import type {
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

export interface TestOAuthProviderOptions {
  /** Where the authorization server sends the browser back (the client's `redirect_uris`). */
  redirectUri: string;
  /** `client_name` of the metadata the client registers with (ignored with `clientMetadataUrl`). */
  clientName: string;
  /** The `state` the client sends and expects back. */
  state: string;
  /** The client's Client ID Metadata Document URL: set, the SDK uses it as `client_id` and never registers. */
  clientMetadataUrl?: string;
  /**
   * The redirect step: what the person does with the authorization URL (sign in, pick a
   * project, approve), in a real browser or a scripted one.
   */
  authorize(url: URL): Promise<void>;
}

/**
 * An `OAuthClientProvider` as an MCP host implements one, kept in memory: client information,
 * tokens, the PKCE verifier and the discovery state. Its redirect step is the test's own
 * (`authorize`); the authorization URL it was given is kept in `authorizationUrl`.
 */
export class TestOAuthProvider implements OAuthClientProvider {
  private client?: StoredOAuthClientInformation;
  private stored?: StoredOAuthTokens;
  private verifier = '';
  private discovery?: OAuthDiscoveryState;
  authorizationUrl?: URL;
  readonly clientMetadataUrl?: string;

  constructor(private readonly options: TestOAuthProviderOptions) {
    this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl() {
    return this.options.redirectUri;
  }
  get clientMetadata() {
    return { client_name: this.options.clientName, redirect_uris: [this.options.redirectUri], token_endpoint_auth_method: 'none' };
  }
  state() {
    return this.options.state;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url;
    await this.options.authorize(url);
  }
}
