import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEventsController } from './audit-events.controller';
import { Membership } from './entities/membership.entity';
import { Organization } from './entities/organization.entity';
import { Project } from './entities/project.entity';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';

/** Organisations, their projects, their members and their audit events (SPEC §6). */
@Module({
  imports: [TypeOrmModule.forFeature([Organization, Project, Membership])],
  controllers: [OrganizationsController, ProjectsController, MembersController, AuditEventsController],
  providers: [OrganizationsService, ProjectsService, MembersService],
  exports: [OrganizationsService, ProjectsService, MembersService],
})
export class OrganizationsModule {}
