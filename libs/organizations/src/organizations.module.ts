import { Module } from '@nestjs/common';
import { PeopleModule } from '@app/people';
import { TenancyModule } from '@app/tenancy';
import { AuditEventsController } from './audit-events.controller';
import { InvitationAcceptanceController, InvitationsController } from './invitations.controller';
import { MembersController } from './members.controller';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';

/** The REST routes for organisations, their projects, their members and invitations, and their audit events (SPEC §6), on tenancy's and people's services. */
@Module({
  imports: [TenancyModule, PeopleModule],
  controllers: [OrganizationsController, ProjectsController, MembersController, InvitationsController, InvitationAcceptanceController, AuditEventsController],
  providers: [OrganizationsService, ProjectsService],
  exports: [OrganizationsService, ProjectsService],
})
export class OrganizationsModule {}
