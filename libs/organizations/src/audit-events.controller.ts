import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import {
  type AuditActor,
  AuditChainService,
  AuditChainVerdictDto,
  AuditEventPageDto,
  AuditEventsService,
  ExportAuditEventsQueryDto,
  ListAuditEventsQueryDto,
} from '@app/audit';
import { ApiErrors, DomainError } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';

@ApiTags('audit')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/audit-events')
@OrganizationRoute('orgId')
export class AuditEventsController {
  constructor(
    private readonly events: AuditEventsService,
    private readonly chains: AuditChainService,
  ) {}

  @Get()
  @RestAuth({ permission: 'audit:read' })
  @ApiOperation({ summary: "The organisation's audit events, newest first (admin session or rk_ with audit:read)" })
  @ApiOkResponse({ type: AuditEventPageDto })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('orgId') orgId: string, @Query() query: ListAuditEventsQueryDto): Promise<AuditEventPageDto> {
    return this.events.list(orgId, query);
  }

  @Get('export')
  @RestAuth({ permission: 'audit:read' })
  @ApiOperation({
    summary: "The organisation's sealed audit chain as OCSF 1.8.0 events, NDJSON in seq order, with checkpoint lines (admin session or rk_ with audit:read); the export is itself recorded",
  })
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({ description: 'One JSON object a line: a sealed OCSF event with `unmapped.chain {seq, prevHash, hash}`, or `{"checkpoint": {seq, hash, keyId, signature, time}}`.' })
  @ApiErrors(400, 401, 403, 404)
  async export(
    @Param('orgId') orgId: string,
    @Query() query: ExportAuditEventsQueryDto,
    @RequestActor() actor: AuditActor,
    @Res() res: Response,
  ): Promise<void> {
    if (query.afterSeq !== undefined && (query.from || query.to)) {
      throw new DomainError('invalid_range', 'give either afterSeq or from/to, not both', 'invalid_input');
    }
    if (query.from && query.to && query.from.getTime() >= query.to.getTime()) throw new DomainError('invalid_range', 'from must be before to', 'invalid_input');
    const lines = await this.chains.exportAudited(orgId, { afterSeq: query.afterSeq, from: query.from, to: query.to }, actor);
    res.status(200).setHeader('content-type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    for await (const line of lines) {
      if (!res.write(`${JSON.stringify(line)}\n`)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  }

  @Get('verify')
  @RestAuth({ permission: 'audit:read' })
  @ApiOperation({ summary: "Verifies the organisation's audit chain: every hash, link and signed checkpoint (admin session or rk_ with audit:read)" })
  @ApiOkResponse({ type: AuditChainVerdictDto })
  @ApiErrors(401, 403, 404)
  verify(@Param('orgId') orgId: string): Promise<AuditChainVerdictDto> {
    return this.chains.verify(orgId);
  }
}
