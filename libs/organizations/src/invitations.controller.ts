import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { CurrentPrincipal, OrganizationRoute, type Principal, RequestActor, RestAuth } from '@app/credentials';
import { AcceptedInvitationDto, AcceptInvitationDto, InvitationDto, InvitationListDto } from './dto/invitation.dto';
import { ListInvitationsQueryDto } from './dto/list-invitations-query.dto';
import { InvitationsService } from '@app/people';

/** An organisation's invitations, for its admins (made by `POST …/members`). */
@ApiTags('members')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/invitations')
@OrganizationRoute('orgId')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "The organisation's invitations, newest first, with their status, a page at a time (admin session only)" })
  @ApiOkResponse({ type: InvitationListDto })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('orgId') orgId: string, @Query() query: ListInvitationsQueryDto): Promise<InvitationListDto> {
    return this.invitations.page(orgId, query);
  }

  @Delete(':invitationId')
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'Withdraw a pending invitation: its link stops working (admin session only)' })
  @ApiOkResponse({ type: InvitationDto })
  @ApiErrors(401, 403, 404)
  withdraw(
    @Param('orgId') orgId: string,
    @Param('invitationId') invitationId: string,
    @RequestActor() actor: AuditActor,
  ): Promise<InvitationDto> {
    return this.invitations.withdraw(orgId, invitationId, actor);
  }
}

/** Accepting an invitation: the signed-in person presents the link's secret. */
@ApiTags('members')
@ApiBearerAuth()
@Controller('api/invitations')
export class InvitationAcceptanceController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post('accept')
  @HttpCode(200)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary:
      'Accept an invitation by presenting its link: you join its organisation with its role. A matching email is not enough (session only)',
  })
  @ApiOkResponse({ type: AcceptedInvitationDto })
  @ApiErrors(400, 401, 403, 404, 409)
  accept(
    @Body() body: AcceptInvitationDto,
    @RequestActor() actor: AuditActor,
    @CurrentPrincipal() principal: Principal | undefined,
  ): Promise<AcceptedInvitationDto> {
    return this.invitations.accept(body, actor, { session: principal?.kind === 'session' ? principal : undefined });
  }
}
