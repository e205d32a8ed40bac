import { All, Body, Controller, Delete, Get, Header, HttpCode, Param, Patch, Post, Put, Query, Req, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import type { AuditActor } from '@app/audit';
import { AppConfig } from '@app/config';
import { CurrentPrincipal, RequestActor, ScimAuth, type Principal } from '@app/credentials';
import { ScimError } from './scim.errors';
import { ScimExceptionFilter } from './scim-exception.filter';
import { resourceTypes, SCIM_CONTENT_TYPE, SCIM_SCHEMAS, schemas, serviceProviderConfig } from './scim-schemas';
import { ScimUsersService, type ScimListQuery } from './scim-users.service';

const JSON_TYPES = ['application/scim+json', 'application/json'];

/** The organisation of the request's `scim_` token (the guard let only those through). */
function organizationOf(principal: Principal | undefined): string {
  if (principal?.kind !== 'scim') throw new ScimError('scim_token_required', 'SCIM requests need a scim_ token', 'unauthenticated');
  return principal.organizationId;
}

/** A body must be JSON (`application/scim+json` or `application/json`). */
function requireJson(req: Request): void {
  if (!req.is(JSON_TYPES)) throw new ScimError('scim_media_type', 'Send the body as application/scim+json', 'invalid_input', 'invalidSyntax');
}

/**
 * SCIM 2.0 (RFC 7644) at `/scim/v2`, for an organisation's identity provider: `Users`,
 * `ServiceProviderConfig`, `Schemas`, `ResourceTypes`. Only a `scim_` token opens it, and only for
 * its own organisation; every answer and refusal is `application/scim+json`.
 */
@ApiExcludeController()
@Controller('scim/v2')
@ScimAuth()
@UseFilters(ScimExceptionFilter)
export class ScimController {
  /** The SCIM base URL, as the documents name it. */
  private readonly base: string;

  constructor(
    private readonly users: ScimUsersService,
    config: AppConfig,
  ) {
    this.base = `${config.baseUrl}/scim/v2`;
  }

  @Get('ServiceProviderConfig')
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  serviceProviderConfig() {
    return serviceProviderConfig(this.base);
  }

  @Get('ResourceTypes')
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  resourceTypes() {
    const items = resourceTypes(this.base);
    return { schemas: [SCIM_SCHEMAS.listResponse], totalResults: items.length, startIndex: 1, itemsPerPage: items.length, Resources: items };
  }

  @Get('ResourceTypes/:id')
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  resourceType(@Param('id') id: string) {
    const found = resourceTypes(this.base).find((t) => t.id === id);
    if (!found) throw new ScimError('not_found', 'No such resource type: this service has User', 'not_found');
    return found;
  }

  @Get('Schemas')
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  schemas() {
    const items = schemas(this.base);
    return { schemas: [SCIM_SCHEMAS.listResponse], totalResults: items.length, startIndex: 1, itemsPerPage: items.length, Resources: items };
  }

  @Get('Schemas/:id')
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  schema(@Param('id') id: string) {
    const found = schemas(this.base).find((s) => s.id === id);
    if (!found) throw new ScimError('not_found', 'No such schema', 'not_found');
    return found;
  }

  @Get('Users')
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ScimListQuery) {
    return this.users.list(organizationOf(principal), query);
  }

  @Post('Users')
  @HttpCode(201)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  async create(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Body() body: Record<string, unknown>, @RequestActor() actor: AuditActor) {
    requireJson(req);
    const created = await this.users.create(organizationOf(principal), body, actor);
    req.res?.setHeader('Location', created.meta.location);
    return created;
  }

  @Get('Users/:id')
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.users.get(organizationOf(principal), id);
  }

  @Put('Users/:id')
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  replace(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Param('id') id: string, @Body() body: Record<string, unknown>, @RequestActor() actor: AuditActor) {
    requireJson(req);
    return this.users.replace(organizationOf(principal), id, body, actor);
  }

  @Patch('Users/:id')
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  patch(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Param('id') id: string, @Body() body: Record<string, unknown>, @RequestActor() actor: AuditActor) {
    requireJson(req);
    return this.users.patch(organizationOf(principal), id, body, actor);
  }

  @Delete('Users/:id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @RequestActor() actor: AuditActor): Promise<void> {
    await this.users.remove(organizationOf(principal), id, actor);
  }

  /** Anything else under `/scim/v2` (`Groups`, `Bulk`, `/Me`, a wrong method): a SCIM 404. */
  @All(['', '*path'])
  unknown(@Req() req: Request): never {
    throw new ScimError('not_found', `No SCIM endpoint ${req.method} ${req.path.slice(0, 200)}: this service offers Users, ServiceProviderConfig, Schemas and ResourceTypes`, 'not_found');
  }
}
