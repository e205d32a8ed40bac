import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { ClientPolicyDto, UpdateClientPolicyDto, UpdatedClientPolicyDto } from './client-policy.dto';
import { ClientPolicyService } from './client-policy.service';

/** Which AI clients may connect to the organisation (admin session only). */
@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/client-policy')
@OrganizationRoute('orgId')
export class ClientPolicyController {
  constructor(private readonly policies: ClientPolicyService) {}

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'Which AI clients may connect: any, or only the listed ones (admin session only)' })
  @ApiOkResponse({ type: ClientPolicyDto })
  @ApiErrors(401, 403, 404)
  get(@Param('orgId') orgId: string): Promise<ClientPolicyDto> {
    return this.policies.get(orgId);
  }

  @Put()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary: 'Set which AI clients may connect; grants of clients it refuses end at once, with their tokens (admin session only)',
  })
  @ApiOkResponse({ type: UpdatedClientPolicyDto })
  @ApiErrors(400, 401, 403, 404)
  update(
    @Param('orgId') orgId: string,
    @Body() body: UpdateClientPolicyDto,
    @RequestActor() actor: AuditActor,
  ): Promise<UpdatedClientPolicyDto> {
    return this.policies.update(orgId, body, actor);
  }
}
