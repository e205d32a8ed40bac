import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentPrincipal, RestAuth, RestPrincipal } from '@app/credentials';
import { CreateServiceKeyDto } from './dto/create-service-key.dto';
import { DeriveProjectTokenDto } from './dto/derive-project-token.dto';
import {
  CreatedServiceKeyDto,
  DerivedProjectTokenDto,
  ProjectTokenListDto,
  RevokedProjectTokenDto,
  RevokedServiceKeyDto,
  ServiceKeyDto,
  ServiceKeyListDto,
} from './dto/service-key.dto';
import { Acting, ServiceKeysService } from './service-keys.service';

const READ = { permission: 'service_keys:read' } as const;
const WRITE = { permission: 'service_keys:write' } as const;

/**
 * Service keys and their derived project tokens (machine flow). An organisation administrator's
 * session, or an `rk_` key of the organisation with `service_keys:read` / `service_keys:write`.
 */
@ApiTags('service keys')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/agent-service-keys')
export class ServiceKeysController {
  constructor(private readonly serviceKeys: ServiceKeysService) {}

  @Post()
  @RestAuth(WRITE)
  @ApiOperation({ summary: 'Create a service key (no secret of its own; permissions default to every agent permission)' })
  @ApiCreatedResponse({ type: CreatedServiceKeyDto })
  create(@Param('orgId') orgId: string, @Body() body: CreateServiceKeyDto, @CurrentPrincipal() principal: RestPrincipal, @Req() req: Request) {
    return this.serviceKeys.create(orgId, body, acting(principal, req));
  }

  @Get()
  @RestAuth(READ)
  @ApiOperation({ summary: 'List service keys with their derived tokens’ metadata' })
  @ApiOkResponse({ type: ServiceKeyListDto })
  async list(@Param('orgId') orgId: string): Promise<ServiceKeyListDto> {
    return { items: await this.serviceKeys.list(orgId) };
  }

  @Get(':keyId')
  @RestAuth(READ)
  @ApiOperation({ summary: 'One service key with its derived tokens’ metadata' })
  @ApiOkResponse({ type: ServiceKeyDto })
  get(@Param('orgId') orgId: string, @Param('keyId') keyId: string) {
    return this.serviceKeys.get(orgId, keyId);
  }

  @Post(':keyId/revoke')
  @HttpCode(200)
  @RestAuth(WRITE)
  @ApiOperation({ summary: 'Revoke the key and, in the same transaction, every token derived from it (idempotent)' })
  @ApiOkResponse({ type: RevokedServiceKeyDto })
  revoke(@Param('orgId') orgId: string, @Param('keyId') keyId: string, @CurrentPrincipal() principal: RestPrincipal, @Req() req: Request) {
    return this.serviceKeys.revoke(orgId, keyId, acting(principal, req));
  }

  @Post(':keyId/tokens')
  @RestAuth(WRITE)
  @ApiOperation({ summary: 'Derive a project token (dga_); the secret is in this response only' })
  @ApiCreatedResponse({ type: DerivedProjectTokenDto })
  derive(
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @Body() body: DeriveProjectTokenDto,
    @CurrentPrincipal() principal: RestPrincipal,
    @Req() req: Request,
  ) {
    return this.serviceKeys.deriveToken(orgId, keyId, body.projectId, acting(principal, req));
  }

  @Get(':keyId/tokens')
  @RestAuth(READ)
  @ApiOperation({ summary: 'Derived tokens of a key (metadata only)' })
  @ApiOkResponse({ type: ProjectTokenListDto })
  async listTokens(@Param('orgId') orgId: string, @Param('keyId') keyId: string): Promise<ProjectTokenListDto> {
    return { items: await this.serviceKeys.listTokens(orgId, keyId) };
  }

  @Post(':keyId/tokens/:tokenId/revoke')
  @HttpCode(200)
  @RestAuth(WRITE)
  @ApiOperation({ summary: 'Revoke one derived token (idempotent)' })
  @ApiOkResponse({ type: RevokedProjectTokenDto })
  revokeToken(
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @Param('tokenId') tokenId: string,
    @CurrentPrincipal() principal: RestPrincipal,
    @Req() req: Request,
  ) {
    return this.serviceKeys.revokeToken(orgId, keyId, tokenId, acting(principal, req));
  }
}

function acting(principal: RestPrincipal, req: Request): Acting {
  return { principal, origin: { ip: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null } };
}
