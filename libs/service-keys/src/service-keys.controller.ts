import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors, KeysetPageQueryDto, RotateDto } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { CreateServiceKeyDto } from './dto/create-service-key.dto';
import { DeriveProjectTokenDto } from './dto/derive-project-token.dto';
import {
  CreatedServiceKeyDto,
  DerivedProjectTokenDto,
  ProjectTokenListDto,
  RevokedProjectTokenDto,
  RevokedServiceKeyDto,
  RotatedProjectTokenDto,
  ServiceKeyDto,
  ServiceKeyListDto,
} from './dto/service-key.dto';
import { ServiceKeysService } from './service-keys.service';

const READ = { permission: 'service_keys:read' } as const;
const WRITE = { permission: 'service_keys:write' } as const;

/**
 * Service keys and their derived project tokens (machine flow). An organisation administrator's
 * session, or an `rk_` key of the organisation with `service_keys:read` / `service_keys:write`.
 */
@ApiTags('service keys')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/agent-service-keys')
@OrganizationRoute('orgId')
export class ServiceKeysController {
  constructor(private readonly serviceKeys: ServiceKeysService) {}

  @Post()
  @RestAuth(WRITE)
  @ApiOperation({ summary: 'Create a service key (no secret of its own; permissions default to every agent permission)' })
  @ApiCreatedResponse({ type: CreatedServiceKeyDto })
  @ApiErrors(400, 401, 403, 404)
  create(
    @Param('orgId') orgId: string,
    @Body() body: CreateServiceKeyDto,
    @RequestActor() actor: AuditActor,
  ): Promise<CreatedServiceKeyDto> {
    return this.serviceKeys.create(orgId, body, actor);
  }

  @Get()
  @RestAuth(READ)
  @ApiOperation({ summary: 'List service keys with their derived tokens’ metadata, newest first, keyset-paginated' })
  @ApiOkResponse({ type: ServiceKeyListDto })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('orgId') orgId: string, @Query() query: KeysetPageQueryDto): Promise<ServiceKeyListDto> {
    return this.serviceKeys.list(orgId, query);
  }

  @Get(':keyId')
  @RestAuth(READ)
  @ApiOperation({ summary: 'One service key with its derived tokens’ metadata' })
  @ApiOkResponse({ type: ServiceKeyDto })
  @ApiErrors(401, 403, 404)
  get(@Param('orgId') orgId: string, @Param('keyId') keyId: string): Promise<ServiceKeyDto> {
    return this.serviceKeys.get(orgId, keyId);
  }

  @Post(':keyId/revoke')
  @HttpCode(200)
  @RestAuth(WRITE)
  @ApiOperation({ summary: 'Revoke the key and, in the same transaction, every token derived from it (idempotent)' })
  @ApiOkResponse({ type: RevokedServiceKeyDto })
  @ApiErrors(401, 403, 404)
  revoke(
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @RequestActor() actor: AuditActor,
  ): Promise<RevokedServiceKeyDto> {
    return this.serviceKeys.revoke(orgId, keyId, actor);
  }

  @Post(':keyId/tokens')
  @RestAuth(WRITE)
  @ApiOperation({ summary: 'Derive a project token (dga_); the secret is in this response only' })
  @ApiCreatedResponse({ type: DerivedProjectTokenDto })
  @ApiErrors(400, 401, 403, 404, 409)
  derive(
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @Body() body: DeriveProjectTokenDto,
    @RequestActor() actor: AuditActor,
  ) {
    return this.serviceKeys.deriveToken(orgId, keyId, body, actor);
  }

  @Get(':keyId/tokens')
  @RestAuth(READ)
  @ApiOperation({ summary: 'Derived tokens of a key (metadata only), oldest first, keyset-paginated' })
  @ApiOkResponse({ type: ProjectTokenListDto })
  @ApiErrors(400, 401, 403, 404)
  listTokens(@Param('orgId') orgId: string, @Param('keyId') keyId: string, @Query() query: KeysetPageQueryDto): Promise<ProjectTokenListDto> {
    return this.serviceKeys.listTokens(orgId, keyId, query);
  }

  @Post(':keyId/tokens/:tokenId/revoke')
  @HttpCode(200)
  @RestAuth(WRITE)
  @ApiOperation({ summary: 'Revoke one derived token (idempotent)' })
  @ApiOkResponse({ type: RevokedProjectTokenDto })
  @ApiErrors(401, 403, 404)
  revokeToken(
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @Param('tokenId') tokenId: string,
    @RequestActor() actor: AuditActor,
  ) {
    return this.serviceKeys.revokeToken(orgId, keyId, tokenId, actor);
  }

  @Post(':keyId/tokens/:tokenId/rotate')
  @RestAuth(WRITE)
  @ApiOperation({
    summary:
      'Rotate a derived token: a new secret for the same key and project (in this response only); the old one keeps ' +
      'working for overlapSeconds (default 24 h, at most 7 days)',
  })
  @ApiCreatedResponse({ type: RotatedProjectTokenDto })
  @ApiErrors(400, 401, 403, 404, 409)
  rotateToken(
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @Param('tokenId') tokenId: string,
    @Body() body: RotateDto,
    @RequestActor() actor: AuditActor,
  ): Promise<RotatedProjectTokenDto> {
    return this.serviceKeys.rotateToken(orgId, keyId, tokenId, body ?? {}, actor);
  }
}
