import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { ClientRegistrationService } from './client-registration.service';
import {
  CreateConfidentialClientDto,
  CreatedConfidentialClientDto,
  OrganizationClientDto,
  OrganizationClientListDto,
  RotatedClientSecretDto,
} from './dto/confidential-client.dto';
import { OrganizationClientsService } from './organization-clients.service';

/**
 * Organisation clients (SPEC §10): confidential clients an organisation's admin makes for AI
 * clients that trade ID-JAGs; they belong to the organisation and survive their creator (admin
 * session only).
 */
@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/oauth-clients')
@OrganizationRoute('orgId')
export class OrganizationClientsController {
  constructor(
    private readonly registrations: ClientRegistrationService,
    private readonly clients: OrganizationClientsService,
  ) {}

  @Post()
  @HttpCode(201)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary:
      'Create a confidential AI client for Enterprise-Managed Authorization (the jwt-bearer grant with an ID-JAG): its client_id and a dgs_ secret shown once (admin session only)',
  })
  @ApiCreatedResponse({ type: CreatedConfidentialClientDto })
  @ApiErrors(400, 401, 403, 404)
  create(@Param('orgId') orgId: string, @Body() body: CreateConfidentialClientDto, @RequestActor() actor: AuditActor): Promise<CreatedConfidentialClientDto> {
    return this.registrations.createConfidential(orgId, body.clientName, actor);
  }

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "The organisation's clients, oldest first (admin session only)" })
  @ApiOkResponse({ type: OrganizationClientListDto })
  @ApiErrors(401, 403, 404)
  async list(@Param('orgId') orgId: string): Promise<OrganizationClientListDto> {
    return { items: await this.clients.list(orgId) };
  }

  @Get(':clientId')
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "One of the organisation's clients; another organisation's is not found (admin session only)" })
  @ApiOkResponse({ type: OrganizationClientDto })
  @ApiErrors(401, 403, 404)
  get(@Param('orgId') orgId: string, @Param('clientId') clientId: string): Promise<OrganizationClientDto> {
    return this.clients.get(orgId, clientId);
  }

  @Post(':clientId/rotate')
  @HttpCode(200)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'A new dgs_ secret for the client, shown once; the old one stops working at once (admin session only)' })
  @ApiOkResponse({ type: RotatedClientSecretDto })
  @ApiErrors(401, 403, 404)
  rotate(@Param('orgId') orgId: string, @Param('clientId') clientId: string, @RequestActor() actor: AuditActor): Promise<RotatedClientSecretDto> {
    return this.clients.rotate(orgId, clientId, actor);
  }

  @Delete(':clientId')
  @HttpCode(204)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "Delete the client: its grants and tokens end, it leaves the identity provider's idJagClients (admin session only)" })
  @ApiNoContentResponse()
  @ApiErrors(401, 403, 404)
  async remove(@Param('orgId') orgId: string, @Param('clientId') clientId: string, @RequestActor() actor: AuditActor): Promise<void> {
    await this.clients.remove(orgId, clientId, actor);
  }
}
