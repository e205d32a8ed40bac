import { Module } from '@nestjs/common';
import { OAuthModule } from '@app/oauth';
import { TenancyModule } from '@app/tenancy';
import { AccessRevocationService } from './access-revocation.service';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsService } from './organizations.service';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';

/** The REST routes for organisations, their projects and their members (SPEC §6), on tenancy's services. */
@Module({
  imports: [TenancyModule, OAuthModule],
  controllers: [OrganizationsController, ProjectsController, MembersController],
  providers: [OrganizationsService, ProjectsService, MembersService, AccessRevocationService],
  exports: [OrganizationsService, ProjectsService, MembersService, AccessRevocationService],
})
export class OrganizationsModule {}
