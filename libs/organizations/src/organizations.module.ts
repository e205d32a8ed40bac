import { Module } from '@nestjs/common';
import { PeopleModule } from '@app/people';
import { ProjectsModule } from '@app/projects';
import { TenancyModule } from '@app/tenancy';
import { AuditEventsController } from './audit-events.controller';
import { InvitationAcceptanceController, InvitationsController } from './invitations.controller';
import { MembersController } from './members.controller';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';
import { ProjectsController } from './projects.controller';

/** The REST routes for organisations, their projects, their members and invitations, and their audit events (SPEC §6), on tenancy's, people's and projects' services. */
@Module({
  imports: [TenancyModule, PeopleModule, ProjectsModule],
  controllers: [OrganizationsController, ProjectsController, MembersController, InvitationsController, InvitationAcceptanceController, AuditEventsController],
  providers: [OrganizationsService],
  exports: [OrganizationsService],
})
export class OrganizationsModule {}
