import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TENANCY_ENTITIES } from './entities';
import { InvitationDirectory } from './invitation-directory.service';
import { MembershipDirectory } from './membership-directory.service';
import { OrganizationDirectory } from './organization-directory.service';
import { PasswordResetDirectory } from './password-reset-directory.service';
import { PeopleLinksCleanupService } from './people-links-cleanup.service';
import { ProjectCreator } from './project-creator.service';
import { ProjectDirectory } from './project-directory.service';
import { SessionDirectory } from './session-directory.service';
import { UserDirectory } from './user-directory.service';

/**
 * People, organisations, memberships and projects: the only module that reads or writes their
 * tables, with `ProjectCreator`, the one way a project is made (with its audit event). No HTTP
 * here; the REST routes live in `organizations` and `auth`.
 */
@Module({
  imports: [TypeOrmModule.forFeature([...TENANCY_ENTITIES])],
  providers: [UserDirectory, OrganizationDirectory, MembershipDirectory, ProjectDirectory, ProjectCreator, InvitationDirectory, PasswordResetDirectory, PeopleLinksCleanupService, SessionDirectory],
  exports: [
    UserDirectory,
    OrganizationDirectory,
    MembershipDirectory,
    ProjectDirectory,
    ProjectCreator,
    InvitationDirectory,
    PasswordResetDirectory,
    PeopleLinksCleanupService,
    SessionDirectory,
  ],
})
export class TenancyModule {}
