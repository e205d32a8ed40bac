import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { AuditEventsController } from './audit-events.controller';
import { InvitationAcceptanceController, InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';

/** The REST routes for organisations, their projects, their members and invitations, and their audit events (SPEC §6), on tenancy's services. */
@Module({
  imports: [TenancyModule],
  controllers: [OrganizationsController, ProjectsController, MembersController, InvitationsController, InvitationAcceptanceController, AuditEventsController],
  providers: [OrganizationsService, ProjectsService, MembersService, InvitationsService],
  exports: [OrganizationsService, ProjectsService, MembersService, InvitationsService],
})
export class OrganizationsModule {}
