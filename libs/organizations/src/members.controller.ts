import { Body, Controller, Delete, Get, Header, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors, KeysetPageQueryDto } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { ChangeMemberRoleDto, HandOverQueryDto, InviteMemberDto, InvitationsService, MembersService, PasswordResetService } from '@app/people';
import { CreatedInvitationDto, ResetLinkDto } from './dto/invitation.dto';
import { ChangedMemberDto, MemberListDto, RemovedMemberDto } from './dto/member.dto';

@ApiTags('members')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/members')
@OrganizationRoute('orgId')
export class MembersController {
  constructor(
    private readonly members: MembersService,
    private readonly invitations: InvitationsService,
    private readonly resets: PasswordResetService,
  ) {}

  @Get()
  @RestAuth({ permission: 'members:read' })
  @ApiOperation({ summary: "The organisation's members, in the order they joined, a page at a time (admin session, or rk_ with members:read)" })
  @ApiOkResponse({ type: MemberListDto })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('orgId') orgId: string, @Query() query: KeysetPageQueryDto): Promise<MemberListDto> {
    return this.members.page(orgId, query);
  }

  @Post()
  @RestAuth({ sessionOnly: true })
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary:
      'Invite a person by email, with a role: answers the invitation link (shown once) the same way whether or not an account uses the email; nothing is granted until the link is accepted (admin session only)',
  })
  @ApiCreatedResponse({ type: CreatedInvitationDto })
  @ApiErrors(400, 401, 403, 404)
  invite(
    @Param('orgId') orgId: string,
    @Body() body: InviteMemberDto,
    @RequestActor() actor: AuditActor,
  ): Promise<CreatedInvitationDto> {
    return this.invitations.invite(orgId, body, actor);
  }

  @Post(':userId/reset-link')
  @RestAuth({ sessionOnly: true })
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary:
      "Issue a one-time password-reset link for a member (shown once, works for an hour; using it ends every session of that person) (admin session only)",
  })
  @ApiCreatedResponse({ type: ResetLinkDto })
  @ApiErrors(401, 403, 404)
  async resetLink(
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @RequestActor() actor: AuditActor,
  ): Promise<ResetLinkDto> {
    await this.members.get(orgId, userId);
    return this.resets.issue(orgId, userId, actor);
  }

  @Patch(':userId')
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary:
      "Change a member's role; the last admin cannot be demoted. Demoting an admin revokes the rk_ keys they created (or hands them to you with handOver=true) and lists the service keys and tokens they could hold (admin session only)",
  })
  @ApiOkResponse({ type: ChangedMemberDto })
  @ApiErrors(400, 401, 403, 404, 409)
  changeRole(
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() body: ChangeMemberRoleDto,
    @Query() query: HandOverQueryDto,
    @RequestActor() actor: AuditActor,
  ): Promise<ChangedMemberDto> {
    return this.members.changeRole(orgId, userId, { role: body.role, handOver: query.handOver === 'true' }, actor);
  }

  @Delete(':userId')
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary:
      'Remove a member: revokes their agent access in this organisation and the rk_ keys they created (or hands those to you with handOver=true), and lists the service keys and tokens they could hold; the last admin cannot be removed (admin session only)',
  })
  @ApiOkResponse({ type: RemovedMemberDto })
  @ApiErrors(400, 401, 403, 404, 409)
  remove(
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Query() query: HandOverQueryDto,
    @RequestActor() actor: AuditActor,
  ): Promise<RemovedMemberDto> {
    return this.members.remove(orgId, userId, { handOver: query.handOver === 'true' }, actor);
  }
}
