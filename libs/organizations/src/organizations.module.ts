import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OAuthModule } from '@app/oauth';
import { AccessRevocationService } from './access-revocation.service';
import { Membership } from './entities/membership.entity';
import { Organization } from './entities/organization.entity';
import { Project } from './entities/project.entity';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';

/** Organisations, their projects and their members (SPEC §6). */
@Module({
  imports: [TypeOrmModule.forFeature([Organization, Project, Membership]), OAuthModule],
  controllers: [OrganizationsController, ProjectsController, MembersController],
  providers: [OrganizationsService, ProjectsService, MembersService, AccessRevocationService],
  exports: [OrganizationsService, ProjectsService, MembersService, AccessRevocationService],
})
export class OrganizationsModule {}
