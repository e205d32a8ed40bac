import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { CurrentPrincipal, OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { SessionPrincipal } from '@app/people';
import { CreateOrganizationDto } from './dto/create-organization.dto';
import { OrganizationDto, OrganizationListDto } from './dto/organization.dto';
import { OrganizationsService } from './organizations.service';

@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations')
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'The organisations you belong to, with your role (session only)' })
  @ApiOkResponse({ type: OrganizationListDto })
  @ApiErrors(401, 403)
  async list(@CurrentPrincipal() principal: SessionPrincipal): Promise<OrganizationListDto> {
    return { items: await this.organizations.listFor(principal) };
  }

  @Post()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'Create an organisation; you become its admin (session only)' })
  @ApiCreatedResponse({ type: OrganizationDto })
  @ApiErrors(400, 401, 403)
  create(@Body() body: CreateOrganizationDto, @RequestActor() actor: AuditActor): Promise<OrganizationDto> {
    return this.organizations.create(body, actor);
  }

  @Get(':orgId')
  @RestAuth({ sessionOnly: true, minRole: 'member' })
  @OrganizationRoute('orgId')
  @ApiOperation({ summary: 'One organisation you belong to (session only; members may read)' })
  @ApiOkResponse({ type: OrganizationDto })
  @ApiErrors(401, 403, 404)
  get(@CurrentPrincipal() principal: SessionPrincipal, @Param('orgId') orgId: string): Promise<OrganizationDto> {
    return this.organizations.getFor(principal.userId, orgId);
  }
}
