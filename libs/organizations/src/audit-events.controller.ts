import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditEventPageDto, AuditEventsService, ListAuditEventsQueryDto } from '@app/audit';
import { ApiErrors } from '@app/common';
import { OrganizationRoute, RestAuth } from '@app/credentials';

@ApiTags('audit')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/audit-events')
@OrganizationRoute('orgId')
export class AuditEventsController {
  constructor(private readonly events: AuditEventsService) {}

  @Get()
  @RestAuth({ permission: 'audit:read' })
  @ApiOperation({ summary: "The organisation's audit events, newest first (admin session or rk_ with audit:read)" })
  @ApiOkResponse({ type: AuditEventPageDto })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('orgId') orgId: string, @Query() query: ListAuditEventsQueryDto): Promise<AuditEventPageDto> {
    return this.events.list(orgId, query);
  }
}
