import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { GrantRevocationResult } from '@app/credential-store';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { ListOrganizationGrantsQueryDto, OrganizationGrantPageDto, RevokedGrantDto } from './dto/organization-grant.dto';
import { OAuthGrantsService } from './oauth-grants.service';

/** Every AI client connected to an organisation's projects (its OAuth grants), for its admins. Admin session only. */
@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/agent-grants')
@OrganizationRoute('orgId')
export class OrganizationGrantsController {
  constructor(private readonly grants: OAuthGrantsService) {}

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary: "The organisation's connected AI clients: client and the host it answers to, project, permissions, who consented, last use; keyset pages (admin session only)",
  })
  @ApiOkResponse({ type: OrganizationGrantPageDto })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('orgId') orgId: string, @Query() query: ListOrganizationGrantsQueryDto): Promise<OrganizationGrantPageDto> {
    return this.grants.listForOrganization(orgId, query);
  }

  @Post(':grantId/revoke')
  @HttpCode(200)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "Disconnect a client: ends the grant, its refresh tokens and its access tokens at once; idempotent (admin session only)" })
  @ApiOkResponse({ type: RevokedGrantDto })
  @ApiErrors(401, 403, 404)
  revoke(@Param('orgId') orgId: string, @Param('grantId') grantId: string, @RequestActor() actor: AuditActor): Promise<GrantRevocationResult> {
    return this.grants.revokeInOrganization(orgId, grantId, { mayManageAll: true }, actor);
  }
}
