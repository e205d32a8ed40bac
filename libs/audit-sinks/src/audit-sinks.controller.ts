import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { OrganizationRoute, RequestActor, RequireRecentSignIn, RestAuth } from '@app/credentials';
import { AuditSinkDto, CreateAuditSinkDto, CreatedAuditSinkDto } from './audit-sinks.dto';
import { AuditSinksService } from './audit-sinks.service';

/** Where the organisation's audit chain is delivered (an admin's session; docs/audit.md, "Sinks"). */
@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/audit-sinks')
@OrganizationRoute('orgId')
export class AuditSinksController {
  constructor(private readonly sinks: AuditSinksService) {}

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "The organisation's audit sinks, each with lastDeliveredSeq, lag and lastError (admin session only)" })
  @ApiOkResponse({ type: AuditSinkDto, isArray: true })
  @ApiErrors(401, 403, 404)
  list(@Param('orgId') orgId: string): Promise<AuditSinkDto[]> {
    return this.sinks.list(orgId);
  }

  @Post()
  @RestAuth({ sessionOnly: true })
  @RequireRecentSignIn()
  @ApiOperation({
    summary:
      'Add a sink (https: the signing secret is shown once); it starts at the chain head unless fromSeq is given; needs a sign-in of the last 15 minutes (admin session only)',
  })
  @ApiCreatedResponse({ type: CreatedAuditSinkDto })
  @ApiErrors(400, 401, 403, 404)
  create(@Param('orgId') orgId: string, @Body() body: CreateAuditSinkDto, @RequestActor() actor: AuditActor): Promise<CreatedAuditSinkDto> {
    return this.sinks.create(orgId, body, actor);
  }

  @Delete(':id')
  @HttpCode(204)
  @RestAuth({ sessionOnly: true })
  @RequireRecentSignIn()
  @ApiOperation({ summary: 'Remove a sink; needs a sign-in of the last 15 minutes (admin session only)' })
  @ApiNoContentResponse()
  @ApiErrors(401, 403, 404)
  async remove(@Param('orgId') orgId: string, @Param('id') id: string, @RequestActor() actor: AuditActor): Promise<void> {
    await this.sinks.remove(orgId, id, actor);
  }
}
