import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { AGENT_PERMISSION_NAMES, AgentPermission } from '@app/capabilities';
import { errorRedirect } from './authorize-urls';
import { OAuthClientsService, RegisteredClient } from './oauth-clients.service';
import { ClientMetadataError, ClientMetadataRateLimitError } from './client-metadata/client-metadata.errors';
import { AuthorizeRedirectErrorCode, OAuthPageError } from './oauth.errors';
import { isOwnResource, isValidCodeChallenge, permissionsFromScope, singleParam } from './oauth-params';
import { matchRedirectUri } from './redirect-uri';

const MAX_STATE_LENGTH = 2000;

/** An authorize request that passed every check of SPEC §5. */
export interface ValidatedAuthorization {
  client: RegisteredClient;
  redirectUri: string;
  redirectUriSent: boolean;
  state: string | null;
  codeChallenge: string;
  requestedPermissions: AgentPermission[];
  resource: string | null;
}

/**
 * A valid request, or an error found after the client and its redirect URI were checked: where
 * it may be sent (`location`) if the person trusts this client, else shown as a page.
 */
export type AuthorizeCheck =
  | { kind: 'valid'; request: ValidatedAuthorization }
  | { kind: 'redirect'; clientId: string; error: AuthorizeRedirectErrorCode; location: string };

/**
 * Validates an authorize request (RFC 6749 §4.1, RFC 7636, RFC 8707). Checks run in an order
 * that never redirects to an unvalidated URI: the client and the redirect URI first (failures
 * are HTML pages), then everything else (failures go back to the redirect URI with `error`,
 * `state` and `iss`).
 */
@Injectable()
export class AuthorizeRequestValidator {
  constructor(
    private readonly config: AppConfig,
    private readonly clients: OAuthClientsService,
  ) {}

  async check(query: Record<string, unknown>, requesterIp: string | null = null): Promise<AuthorizeCheck> {
    const clientIdParam = singleParam(query, 'client_id');
    if (clientIdParam.duplicate) throw new OAuthPageError(400, 'Invalid request', 'The client_id parameter was sent more than once.');
    if (!clientIdParam.value) throw new OAuthPageError(400, 'Invalid request', 'The request does not name an application (client_id is missing).');
    const client = await this.clients.find(clientIdParam.value, requesterIp).catch((error: unknown) => {
      if (error instanceof ClientMetadataRateLimitError) {
        throw new OAuthPageError(429, 'Application could not be verified yet', error.message, error.retryAfterSeconds);
      }
      if (error instanceof ClientMetadataError) throw new OAuthPageError(400, 'Application could not be verified', error.message);
      throw error;
    });
    if (!client) {
      throw new OAuthPageError(400, 'Unknown application', 'The application that sent you here is not registered with Agent Gateway.');
    }

    const redirectParam = singleParam(query, 'redirect_uri');
    if (redirectParam.duplicate) throw new OAuthPageError(400, 'Invalid request', 'The redirect_uri parameter was sent more than once.');
    let redirectUri: string;
    let redirectUriSent: boolean;
    if (redirectParam.value === undefined) {
      if (client.redirectUris.length !== 1) {
        throw new OAuthPageError(400, 'Invalid request', 'The request has no redirect_uri and the application registered several.');
      }
      redirectUri = client.redirectUris[0];
      redirectUriSent = false;
    } else {
      if (!matchRedirectUri(client.redirectUris, redirectParam.value)) {
        throw new OAuthPageError(
          400,
          'Unregistered redirect URI',
          'The address this request wants to send you back to is not one the application registered, so Agent Gateway will not send you there.',
        );
      }
      redirectUri = redirectParam.value;
      redirectUriSent = true;
    }

    // From here on the redirect URI is the client's: errors may go back to it (the controller
    // decides whether the person trusts this client enough to be sent there, RFC 9700 §4.11.2).
    const stateParam = singleParam(query, 'state');
    const state = stateParam.value ?? null;
    const fail = (error: AuthorizeRedirectErrorCode, description: string): AuthorizeCheck => ({
      kind: 'redirect',
      clientId: client.clientId,
      error,
      location: errorRedirect(this.config.issuer, redirectUri, error, description, stateParam.duplicate ? null : state),
    });
    if (stateParam.duplicate) return fail('invalid_request', 'state was sent more than once');
    if (state !== null && state.length > MAX_STATE_LENGTH) return fail('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters`);

    for (const name of ['response_type', 'code_challenge', 'code_challenge_method', 'scope']) {
      if (singleParam(query, name).duplicate) return fail('invalid_request', `${name} was sent more than once`);
    }
    const responseType = singleParam(query, 'response_type').value;
    if (!responseType) return fail('invalid_request', 'response_type is required');
    if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported');

    const codeChallenge = singleParam(query, 'code_challenge').value;
    const method = singleParam(query, 'code_challenge_method').value;
    if (!codeChallenge) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
    if (method === undefined) return fail('invalid_request', 'code_challenge_method is required and must be S256 (plain is not supported)');
    if (method !== 'S256') return fail('invalid_request', `code_challenge_method ${method} is not supported; use S256`);
    if (!isValidCodeChallenge(codeChallenge)) {
      return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the code verifier');
    }

    let resource: string | null = null;
    const rawResource = query.resource;
    if (rawResource !== undefined && rawResource !== '') {
      const values = Array.isArray(rawResource) ? rawResource : [rawResource];
      if (!values.every((v) => typeof v === 'string' && isOwnResource(v, this.config.mcpResourceUrl))) {
        return fail('invalid_target', `resource must be ${this.config.mcpResourceUrl}`);
      }
      resource = this.config.mcpResourceUrl;
    }

    const requestedPermissions = permissionsFromScope(singleParam(query, 'scope').value) ?? [...AGENT_PERMISSION_NAMES];
    return {
      kind: 'valid',
      request: { client, redirectUri, redirectUriSent, state, codeChallenge, requestedPermissions, resource },
    };
  }
}
