import { OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import { hasUnsafeDisplayCharacters, unsafeDisplayMessage } from '@app/common';
import { CLIENT_AUTH_METHODS, ClientAuthMethod } from './entities/oauth-client.entity';
import { OAuthError } from './oauth.errors';
import { redirectUriProblem } from './redirect-uri';

/** The grant types a client gets when it names none (and a metadata-document client always). */
export const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
/** RFC 7523 §2.1: the grant type of a JWT authorization grant, here an ID-JAG (Enterprise-Managed Authorization). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Every grant type an anonymous registration may name (the jwt-bearer grant belongs to organisation clients, SPEC §10). */
const REGISTRABLE_GRANT_TYPES = [...SUPPORTED_GRANT_TYPES];
const MAX_REDIRECT_URIS = 20;
const MAX_CLIENT_NAME = 200;

export interface ParsedMetadata {
  clientName: string;
  redirectUris: string[];
  grantTypes: string[];
  tokenEndpointAuthMethod: ClientAuthMethod;
}

/** The MCP SDK's RFC 7591 §2 field schemas: the shape of each field this server reads. */
const FIELD = OAuthClientMetadataSchema.shape;

/**
 * RFC 7591 §2 metadata, validated; errors are RFC 7591 §3.2.2 codes. The shape of each field
 * read comes from the SDK's `OAuthClientMetadataSchema`; fields this server does not use are
 * ignored, not checked; `client_name`, the one shown to people, may not hold control or
 * bidirectional formatting characters (`hasUnsafeDisplayCharacters`). Redirect URIs follow this server's own rules (`redirectUriProblem`),
 * which are stricter than a URL's shape and name what is wrong.
 */
export function parseMetadata(metadata: unknown, extraSchemes: readonly string[]): ParsedMetadata {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new OAuthError('invalid_client_metadata', 'The registration request must be a JSON object');
  }
  const m = metadata as Record<string, unknown>;

  let grantTypes: string[] = [...SUPPORTED_GRANT_TYPES];
  if (m.grant_types !== undefined) {
    if (!FIELD.grant_types.safeParse(m.grant_types).success) {
      throw new OAuthError('invalid_client_metadata', 'grant_types must be an array of strings');
    }
    if ((m.grant_types as string[]).includes(JWT_BEARER_GRANT)) {
      throw new OAuthError(
        'invalid_client_metadata',
        `The ${JWT_BEARER_GRANT} grant (ID-JAG) is not registered anonymously: an admin of the organisation makes an organisation client for it (POST /api/organizations/:orgId/oauth-clients, or the Connected clients page)`,
      );
    }
    grantTypes = REGISTRABLE_GRANT_TYPES.filter((g) => (m.grant_types as string[]).includes(g));
    if (!grantTypes.includes('authorization_code')) {
      throw new OAuthError('invalid_client_metadata', 'grant_types must include authorization_code (this server registers authorization_code and refresh_token)');
    }
  }
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of redirect URIs');
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs may be registered`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, extraSchemes);
    if (problem) {
      const shown = typeof uri === 'string' ? uri.slice(0, 200) : JSON.stringify(uri);
      throw new OAuthError('invalid_redirect_uri', `Redirect URI ${shown} ${problem}`);
    }
  }
  const redirectUris = [...new Set(uris as string[])];

  let tokenEndpointAuthMethod: ClientAuthMethod = 'none';
  if (m.token_endpoint_auth_method !== undefined) {
    if (!CLIENT_AUTH_METHODS.includes(m.token_endpoint_auth_method as ClientAuthMethod)) {
      throw new OAuthError(
        'invalid_client_metadata',
        `token_endpoint_auth_method must be one of ${CLIENT_AUTH_METHODS.join(', ')}`,
      );
    }
    tokenEndpointAuthMethod = m.token_endpoint_auth_method as ClientAuthMethod;
  }

  if (m.response_types !== undefined) {
    if (!Array.isArray(m.response_types) || !m.response_types.includes('code')) {
      throw new OAuthError('invalid_client_metadata', 'response_types must include code');
    }
  }

  let clientName = 'Unnamed application';
  if (m.client_name !== undefined) {
    const name = FIELD.client_name.safeParse(m.client_name);
    if (!name.success || name.data === undefined) throw new OAuthError('invalid_client_metadata', 'client_name must be a string');
    // Shown on the consent page, the Connected clients page and in the audit log: refused, never echoed.
    if (hasUnsafeDisplayCharacters(name.data)) throw new OAuthError('invalid_client_metadata', unsafeDisplayMessage('client_name'));
    const trimmed = name.data.trim();
    if (trimmed.length > MAX_CLIENT_NAME) {
      throw new OAuthError('invalid_client_metadata', `client_name must be at most ${MAX_CLIENT_NAME} characters`);
    }
    if (trimmed) clientName = trimmed;
  }

  return { clientName, redirectUris, grantTypes, tokenEndpointAuthMethod };
}
