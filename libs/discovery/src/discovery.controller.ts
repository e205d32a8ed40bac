import { All, Controller, Get, Header, NotFoundException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/core';
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import { AppConfig } from '@app/config';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';
import { Public } from '@app/credentials';

/**
 * OAuth discovery (RFC 9728 protected-resource metadata, RFC 8414 authorization-server
 * metadata). Public, cacheable, CORS `*`, never 401: clients that meet a 401 or 5xx here stop.
 * The documents are built once, typed and checked at start with the MCP SDK's schemas of the
 * two RFCs: every URL comes from BASE_URL, and the issuer is byte-identical in both.
 */
@Public()
@ApiExcludeController()
@Controller('.well-known')
export class DiscoveryController {
  private readonly protectedResource: OAuthProtectedResourceMetadata;
  private readonly authorizationServer: OAuthMetadata;

  constructor(config: AppConfig) {
    const protectedResource: OAuthProtectedResourceMetadata = {
      resource: config.mcpResourceUrl,
      authorization_servers: [config.issuer],
      scopes_supported: AGENT_PERMISSION_NAMES,
      bearer_methods_supported: ['header'],
      resource_name: 'Agent Gateway',
    };
    const oauth = `${config.baseUrl}/api/agent/oauth`;
    const authorizationServer: OAuthMetadata = {
      issuer: config.issuer,
      authorization_endpoint: `${oauth}/authorize`,
      token_endpoint: `${oauth}/token`,
      registration_endpoint: `${oauth}/register`,
      revocation_endpoint: `${oauth}/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
      scopes_supported: AGENT_PERMISSION_NAMES,
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      // Enterprise-Managed Authorization: the jwt-bearer grant takes ID-JAGs (docs/oauth.md).
      ...{ authorization_grant_profiles_supported: ['urn:ietf:params:oauth:grant-profile:id-jag'] },
    };
    // Fails start-up, not a client, should a document ever stop matching its RFC's shape.
    OAuthProtectedResourceMetadataSchema.parse(protectedResource);
    OAuthMetadataSchema.parse(authorizationServer);
    this.protectedResource = protectedResource;
    this.authorizationServer = authorizationServer;
  }

  @Get(['oauth-protected-resource/api/mcp', 'oauth-protected-resource'])
  @Header('Cache-Control', 'public, max-age=300')
  protectedResourceMetadata(): OAuthProtectedResourceMetadata {
    return this.protectedResource;
  }

  @Get('oauth-authorization-server')
  @Header('Cache-Control', 'public, max-age=300')
  authorizationServerMetadata(): OAuthMetadata {
    return this.authorizationServer;
  }

  /** Anything else under /.well-known is a plain 404, so clients fall back to the next location. */
  @All('*path')
  notFound(): never {
    throw new NotFoundException('No such discovery document');
  }
}
