import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors, KeysetPageQueryDto, RotateDto } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyListDto, CreatedApiKeyDto, RevokedApiKeyDto, RotatedApiKeyDto } from './dto/api-key.dto';
import { CreateApiKeyDto } from './dto/create-api-key.dto';

/** Scoped API keys: an admin's session only; an `rk_` key never manages keys. */
@ApiTags('api-keys')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/api-keys')
@OrganizationRoute('orgId')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'Create a scoped rk_ key; the secret is in this response only (admin session only)' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiErrors(400, 401, 403, 404)
  create(
    @Param('orgId') orgId: string,
    @Body() body: CreateApiKeyDto,
    @RequestActor() actor: AuditActor,
  ): Promise<CreatedApiKeyDto> {
    return this.keys.create(orgId, body, actor);
  }

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "The organisation's API keys, newest first, without secrets; keyset pages (admin session only)" })
  @ApiOkResponse({ type: ApiKeyListDto })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('orgId') orgId: string, @Query() query: KeysetPageQueryDto): Promise<ApiKeyListDto> {
    return this.keys.list(orgId, query);
  }

  @Post(':keyId/revoke')
  @HttpCode(200)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'Revoke an API key; idempotent (admin session only)' })
  @ApiOkResponse({ type: RevokedApiKeyDto })
  @ApiErrors(401, 403, 404)
  revoke(
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @RequestActor() actor: AuditActor,
  ): Promise<RevokedApiKeyDto> {
    return this.keys.revoke(orgId, keyId, actor);
  }

  @Post(':keyId/rotate')
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary:
      'Rotate an API key: a new secret with the same name and permissions (in this response only); the old one keeps ' +
      'working for overlapSeconds (default 24 h, at most 7 days) (admin session only)',
  })
  @ApiCreatedResponse({ type: RotatedApiKeyDto })
  @ApiErrors(400, 401, 403, 404, 409)
  rotate(
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @Body() body: RotateDto,
    @RequestActor() actor: AuditActor,
  ): Promise<RotatedApiKeyDto> {
    return this.keys.rotate(orgId, keyId, body ?? {}, actor);
  }
}
