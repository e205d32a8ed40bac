import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { AuditEventsController } from './audit-events.controller';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';

/** The REST routes for organisations, their projects, their members and their audit events (SPEC §6), on tenancy's services. */
@Module({
  imports: [TenancyModule],
  controllers: [OrganizationsController, ProjectsController, MembersController, AuditEventsController],
  providers: [OrganizationsService, ProjectsService, MembersService],
  exports: [OrganizationsService, ProjectsService, MembersService],
})
export class OrganizationsModule {}
