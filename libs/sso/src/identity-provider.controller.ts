import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors, NotFoundError } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { IdentityProviderSettings, SsoRedirectUris } from '@app/identity';
import { ClaimedDomainDto, IdentityProviderDto, PutIdentityProviderDto, RedirectUriDto } from './dto/identity-provider.dto';

/**
 * The organisation's OpenID Connect identity provider and its email domains (admin session
 * only: `rk_` keys cannot change how people sign in).
 */
@ApiTags('single sign-on')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/identity-provider')
@OrganizationRoute('orgId')
export class IdentityProviderController {
  constructor(
    private readonly settings: IdentityProviderSettings,
    private readonly redirectUris: SsoRedirectUris,
  ) {}

  @Get('redirect-uri')
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary: "The organisation's own redirect URI to register at its identity provider, made on first use and kept for the organisation (admin session only)",
  })
  @ApiOkResponse({ type: RedirectUriDto })
  @ApiErrors(401, 403, 404)
  async redirectUri(@Param('orgId') orgId: string): Promise<RedirectUriDto> {
    return { redirectUri: await this.redirectUris.uriFor(orgId) };
  }

  @Post('redirect-uri/confirm')
  @HttpCode(200)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary:
      "\"I registered the new URI\": clears the identity provider's legacyRedirectUri flag, so only the organisation's own redirect URI is accepted from now on (audited; admin session only)",
  })
  @ApiOkResponse({ type: RedirectUriDto })
  @ApiErrors(401, 403, 404)
  async confirmRedirectUri(@Param('orgId') orgId: string, @RequestActor() actor: AuditActor): Promise<RedirectUriDto> {
    await this.redirectUris.confirmNewUri(orgId, actor);
    return { redirectUri: await this.redirectUris.uriFor(orgId) };
  }

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "The organisation's identity provider: settings (never the client secret), email domains with their TXT records, discovery summary (admin session only)" })
  @ApiOkResponse({ type: IdentityProviderDto })
  @ApiErrors(401, 403, 404)
  async get(@Param('orgId') orgId: string): Promise<IdentityProviderDto> {
    const view = await this.settings.get(orgId);
    if (!view) throw new NotFoundError('Identity provider');
    return view;
  }

  @Put()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary:
      "Connect or replace the organisation's identity provider (the whole settings); its discovery document and key set are fetched and checked (admin session only)",
  })
  @ApiOkResponse({ type: IdentityProviderDto })
  @ApiErrors(400, 401, 403, 404, 409)
  put(@Param('orgId') orgId: string, @Body() body: PutIdentityProviderDto, @RequestActor() actor: AuditActor): Promise<IdentityProviderDto> {
    return this.settings.put(orgId, body, actor);
  }

  @Delete()
  @HttpCode(204)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "Disconnect the organisation's identity provider and drop its domain claims (admin session only)" })
  @ApiNoContentResponse()
  @ApiErrors(401, 403, 404)
  async remove(@Param('orgId') orgId: string, @RequestActor() actor: AuditActor): Promise<void> {
    await this.settings.remove(orgId, actor);
  }

  @Post('domains/:domain/verify')
  @HttpCode(200)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary:
      'Verify a claimed email domain: looks up the TXT record agent-gateway-verification=<token> at _agent-gateway.<domain> (or the domain itself) (admin session only)',
  })
  @ApiOkResponse({ type: ClaimedDomainDto })
  @ApiErrors(400, 401, 403, 404, 409)
  verify(@Param('orgId') orgId: string, @Param('domain') domain: string, @RequestActor() actor: AuditActor): Promise<ClaimedDomainDto> {
    return this.settings.verifyDomain(orgId, domain, actor);
  }
}
