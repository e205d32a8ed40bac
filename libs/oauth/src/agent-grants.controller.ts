import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { GrantRevocationResult } from '@app/credential-store';
import { CurrentPrincipal, RequestActor, RestAuth } from '@app/credentials';
import { SessionPrincipal } from '@app/people';
import { AgentGrantView, OAuthGrantsService } from './oauth-grants.service';

/** The person's connected AI clients (their OAuth grants). Session only. */
@ApiTags('me')
@ApiBearerAuth()
@Controller('api/me/agent-grants')
export class AgentGrantsController {
  constructor(private readonly grants: OAuthGrantsService) {}

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'The AI clients you connected: client, project, organisation, permissions, last use (in the organisations this session opens)' })
  list(@CurrentPrincipal() principal: SessionPrincipal): Promise<AgentGrantView[]> {
    return this.grants.listForUser(principal);
  }

  @Post(':grantId/revoke')
  @HttpCode(200)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'Disconnect a client: ends the grant, its refresh tokens and its access tokens' })
  revoke(
    @Param('grantId') grantId: string,
    @RequestActor() actor: AuditActor,
    @CurrentPrincipal() principal: SessionPrincipal,
  ): Promise<GrantRevocationResult> {
    return this.grants.revokeForUser(grantId, actor, principal);
  }
}
