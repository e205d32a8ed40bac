import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { ClientRegistrationService } from './client-registration.service';
import { CreateConfidentialClientDto, CreatedConfidentialClientDto } from './dto/confidential-client.dto';

/** Confidential clients an organisation's admin makes for AI clients that trade ID-JAGs (admin session only). */
@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/oauth-clients')
@OrganizationRoute('orgId')
export class OrganizationClientsController {
  constructor(private readonly registrations: ClientRegistrationService) {}

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
}
