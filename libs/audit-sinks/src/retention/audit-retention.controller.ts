import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuditActor, AuditRetentionService } from '@app/audit';
import { ApiErrors, DomainError } from '@app/common';
import { AppConfig } from '@app/config';
import { OrganizationRoute, RequestActor, RequireRecentSignIn, RestAuth } from '@app/credentials';
import { AuditRetentionJob } from './audit-retention-job';
import { AuditRetentionDto, UpdateAuditRetentionDto } from './audit-retention.dto';

/** How long the organisation's audit records are kept (an admin's session; docs/audit.md, "Retention"). */
@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/audit-retention')
@OrganizationRoute('orgId')
export class AuditRetentionController {
  constructor(
    private readonly retention: AuditRetentionService,
    private readonly job: AuditRetentionJob,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "The organisation's audit retention: its own period, the deployment's, and where its chain now begins (admin session only)" })
  @ApiOkResponse({ type: AuditRetentionDto })
  @ApiErrors(401, 403, 404)
  get(@Param('orgId') orgId: string): Promise<AuditRetentionDto> {
    return this.view(orgId);
  }

  @Put()
  @RestAuth({ sessionOnly: true })
  @RequireRecentSignIn()
  @ApiOperation({ summary: 'Set a longer retention for the organisation, or null for the deployment\'s; needs a sign-in of the last 15 minutes (admin session only)' })
  @ApiOkResponse({ type: AuditRetentionDto })
  @ApiErrors(400, 401, 403, 404)
  async update(@Param('orgId') orgId: string, @Body() body: UpdateAuditRetentionDto, @RequestActor() actor: AuditActor): Promise<AuditRetentionDto> {
    const least = this.config.auditRetentionDays;
    if (body.retentionDays !== null && body.retentionDays < least) {
      throw new DomainError('invalid_retention', `retentionDays must be at least ${least} (AUDIT_RETENTION_DAYS): an organisation may keep its audit records longer, not shorter`);
    }
    await this.retention.setRetentionDays(orgId, body.retentionDays, actor);
    return this.view(orgId);
  }

  private async view(orgId: string): Promise<AuditRetentionDto> {
    const { retentionDays, expiredThroughSeq } = await this.retention.retention(orgId);
    return {
      retentionDays,
      defaultRetentionDays: this.config.auditRetentionDays,
      effectiveRetentionDays: this.job.daysOf(retentionDays),
      expiredThroughSeq,
    };
  }
}
