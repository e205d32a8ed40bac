import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { CreatedScimTokenDto, CreateScimTokenDto, RevokedScimTokenDto, ScimTokenListDto, ScimTokensService } from '@app/scim-tokens';

/** An organisation's SCIM tokens: an administrator's session only. */
@ApiTags('scim tokens')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/scim-tokens')
@OrganizationRoute('orgId')
export class ScimTokensController {
  constructor(private readonly tokens: ScimTokensService) {}

  @Post()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "Make a SCIM token for the organisation's identity provider (the secret is shown once)" })
  @ApiCreatedResponse({ type: CreatedScimTokenDto })
  @ApiErrors(400, 401, 403, 404)
  create(@Param('orgId') orgId: string, @Body() body: CreateScimTokenDto, @RequestActor() actor: AuditActor): Promise<CreatedScimTokenDto> {
    return this.tokens.create(orgId, body, actor);
  }

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "The organisation's live SCIM tokens (never their secrets)" })
  @ApiOkResponse({ type: ScimTokenListDto })
  @ApiErrors(401, 403, 404)
  list(@Param('orgId') orgId: string): Promise<ScimTokenListDto> {
    return this.tokens.list(orgId);
  }

  @Delete(':tokenId')
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'Revoke a SCIM token: its next request is refused' })
  @ApiOkResponse({ type: RevokedScimTokenDto })
  @ApiErrors(401, 403, 404)
  revoke(@Param('orgId') orgId: string, @Param('tokenId') tokenId: string, @RequestActor() actor: AuditActor): Promise<RevokedScimTokenDto> {
    return this.tokens.revoke(orgId, tokenId, actor);
  }
}
