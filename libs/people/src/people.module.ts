import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { InvitationsService } from './invitations.service';
import { MembersService } from './members.service';

/**
 * People and their place in organisations, without HTTP (docs/architecture.md): memberships and
 * their changes (the last-admin rule, removal and offboarding), invitations and their acceptance.
 * `organizations`, `sso`, `scim` and the dashboard are adapters over it.
 */
@Module({
  imports: [TenancyModule],
  providers: [MembersService, InvitationsService],
  exports: [MembersService, InvitationsService],
})
export class PeopleModule {}
