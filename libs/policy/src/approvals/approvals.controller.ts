import { Body, Controller, Get, Header, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors, NotFoundError } from '@app/common';
import { CurrentPrincipal, OrganizationRoute, type Principal, RequestActor, RequireRecentSignIn, RestAuth } from '@app/credentials';
import { MembershipDirectory } from '@app/tenancy';
import { ApprovalDecisions, type ApprovalViewer, type ApprovalView } from './approval-decisions';
import { ApprovalDecisionDto, ApprovalDto, ApprovalListDto, ApprovalListQueryDto } from './approvals.dto';

/**
 * Approvals of agents' calls (docs/policy.md, "Approvals"): a person's session only (an `rk_` key
 * gets 403); readable by the rule's approvers, the requester and the admins (anyone else: 404); a
 * decision needs a sign-in of the last 15 minutes.
 */
@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/approvals')
@OrganizationRoute('orgId')
export class ApprovalsController {
  constructor(
    private readonly decisions: ApprovalDecisions,
    private readonly memberships: MembershipDirectory,
  ) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @RestAuth({ sessionOnly: true, minRole: 'member' })
  @ApiOperation({ summary: 'The approvals the caller may read, newest first, optionally of one status (a session only)' })
  @ApiOkResponse({ type: ApprovalListDto })
  @ApiErrors(400, 401, 403, 404)
  async list(@Param('orgId') orgId: string, @Query() query: ApprovalListQueryDto, @CurrentPrincipal() principal: Principal): Promise<ApprovalListDto> {
    const approvals = await this.decisions.list(orgId, await this.viewer(orgId, principal), query.status ?? null);
    return { approvals: approvals.map(dtoOf) };
  }

  @Get(':id')
  @Header('Cache-Control', 'no-store')
  @RestAuth({ sessionOnly: true, minRole: 'member' })
  @ApiOperation({ summary: "One approval: the held call's arguments, binding, rule and status (its approvers, requester and admins)" })
  @ApiOkResponse({ type: ApprovalDto })
  @ApiErrors(401, 403, 404)
  async get(@Param('orgId') orgId: string, @Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<ApprovalDto> {
    return dtoOf(await this.decisions.view(orgId, id, await this.viewer(orgId, principal)));
  }

  @Post(':id/decision')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @RestAuth({ sessionOnly: true, minRole: 'member' })
  @RequireRecentSignIn()
  @ApiOperation({
    summary:
      "Approve or deny a pending approval (one of its approvers; needs a sign-in of the last 15 minutes, else 401 reauthentication_required; 409 when it is no longer pending, already approved by the caller, or its credential ended)",
  })
  @ApiOkResponse({ type: ApprovalDto })
  @ApiErrors(400, 401, 403, 404, 409)
  async decide(
    @Param('orgId') orgId: string,
    @Param('id') id: string,
    @Body() body: ApprovalDecisionDto,
    @CurrentPrincipal() principal: Principal,
    @RequestActor() actor: AuditActor,
  ): Promise<ApprovalDto> {
    return dtoOf(await this.decisions.decide(orgId, id, await this.viewer(orgId, principal), body.decision, body.reason ?? null, actor));
  }

  private async viewer(orgId: string, principal: Principal): Promise<ApprovalViewer> {
    // The guard let only a member's session through; a membership gone since then reads nothing.
    const role = principal.kind === 'session' ? await this.memberships.roleOf(principal.userId, orgId) : null;
    if (!role || principal.kind !== 'session') throw new NotFoundError('Approval');
    return { userId: principal.userId, role };
  }
}

/** The REST answer: the approval without its internal binding columns. */
export function dtoOf(v: ApprovalView): ApprovalDto {
  return {
    id: v.id,
    status: v.status,
    url: v.url,
    projectId: v.projectId,
    tool: v.tool,
    risk: v.risk,
    arguments: v.arguments,
    argumentsSha256: v.argumentsSha256,
    clientId: v.clientId,
    credentialKind: v.credentialKind,
    credentialId: v.credentialId,
    userId: v.userId,
    ruleId: v.ruleId,
    ruleDescription: v.ruleDescription,
    approvals: v.approvals,
    approvedBy: v.approvedBy,
    deniedBy: v.deniedBy,
    decisionReason: v.decisionReason,
    voidedReason: v.voidedReason,
    canDecide: v.canDecide,
    createdAt: v.createdAt,
    expiresAt: v.expiresAt,
    decidedAt: v.decidedAt,
    consumedAt: v.consumedAt,
  };
}
