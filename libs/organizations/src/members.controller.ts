import { Body, Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditOrigin, RequestOrigin } from '@app/audit';
import { ApiErrors } from '@app/common';
import { actorOf, CurrentPrincipal, OrganizationRoute, RestAuth, SessionPrincipal } from '@app/credentials';
import { AddMemberDto } from './dto/add-member.dto';
import { ChangeMemberRoleDto } from './dto/change-member-role.dto';
import { MemberDto, MemberListDto, RemovedMemberDto } from './dto/member.dto';
import { MembersService } from './members.service';

@ApiTags('members')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/members')
@OrganizationRoute('orgId')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @RestAuth({ permission: 'members:read' })
  @ApiOperation({ summary: "The organisation's members (admin session, or rk_ with members:read)" })
  @ApiOkResponse({ type: MemberListDto })
  @ApiErrors(401, 403, 404)
  async list(@Param('orgId') orgId: string): Promise<MemberListDto> {
    return { items: await this.members.list(orgId) };
  }

  @Post()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'Add an existing account by email, with a role (admin session only)' })
  @ApiCreatedResponse({ type: MemberDto })
  @ApiErrors(400, 401, 403, 404, 409)
  add(
    @Param('orgId') orgId: string,
    @Body() body: AddMemberDto,
    @CurrentPrincipal() principal: SessionPrincipal,
    @AuditOrigin() origin: RequestOrigin,
  ): Promise<MemberDto> {
    return this.members.add(orgId, body.email, body.role, actorOf(principal), origin);
  }

  @Patch(':userId')
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "Change a member's role; the last admin cannot be demoted (admin session only)" })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors(400, 401, 403, 404, 409)
  changeRole(
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Body() body: ChangeMemberRoleDto,
    @CurrentPrincipal() principal: SessionPrincipal,
    @AuditOrigin() origin: RequestOrigin,
  ): Promise<MemberDto> {
    return this.members.changeRole(orgId, userId, body.role, actorOf(principal), origin);
  }

  @Delete(':userId')
  @RestAuth({ sessionOnly: true })
  @ApiOperation({
    summary: 'Remove a member and revoke their agent access in this organisation; the last admin cannot be removed (admin session only)',
  })
  @ApiOkResponse({ type: RemovedMemberDto })
  @ApiErrors(401, 403, 404, 409)
  remove(
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @CurrentPrincipal() principal: SessionPrincipal,
    @AuditOrigin() origin: RequestOrigin,
  ): Promise<RemovedMemberDto> {
    return this.members.remove(orgId, userId, actorOf(principal), origin);
  }
}
