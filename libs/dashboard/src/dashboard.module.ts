import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { OrganizationsModule } from '@app/organizations';
import { OAuthModule } from '@app/oauth';
import { TenancyModule } from '@app/tenancy';
import { AssetsController } from './assets.controller';
import { DashboardContextGuard } from './dashboard-context';
import { HomeController } from './home.controller';
import { ProjectsPageController } from './projects/projects-page.controller';
import { MembersPageController } from './members/members-page.controller';
import { AuditPageController } from './audit/audit-page.controller';
import { AuditNamesReader } from './audit/audit-names';

/**
 * The dashboard: server-rendered pages for everything a person does in an organisation. Its
 * forms post to its own routes, which call the same services as the REST routes (never REST
 * itself, never the tables).
 */
@Module({
  imports: [
    AuthModule,
    OrganizationsModule,
    OAuthModule,
    TenancyModule,
  ],
  controllers: [
    AssetsController,
    HomeController,
    ProjectsPageController,
    MembersPageController,
    AuditPageController,
  ],
  providers: [
    DashboardContextGuard,
    AuditNamesReader,
  ],
})
export class DashboardModule {}
