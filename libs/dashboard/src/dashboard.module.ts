import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { OrganizationsModule } from '@app/organizations';
import { OAuthModule } from '@app/oauth';
import { ServiceKeysModule } from '@app/service-keys';
import { TenancyModule } from '@app/tenancy';
import { AssetsController } from './assets.controller';
import { AuditNamesReader } from './audit/audit-names';
import { AuditPageController } from './audit/audit-page.controller';
import { DashboardContextGuard } from './dashboard-context';
import { HomeController } from './home.controller';
import { MembersPageController } from './members/members-page.controller';
import { ProjectsPageController } from './projects/projects-page.controller';
import { ProjectTokensPageController } from './service-keys/project-tokens-page.controller';
import { ServiceKeysPageController } from './service-keys/service-keys-page.controller';

/**
 * The dashboard: server-rendered pages for everything a person does in an organisation. Its
 * forms post to its own routes, which call the same services as the REST routes (never REST
 * itself, never the tables).
 */
@Module({
  imports: [AuthModule, OrganizationsModule, ServiceKeysModule, OAuthModule, TenancyModule],
  controllers: [
    AssetsController,
    HomeController,
    ProjectsPageController,
    ServiceKeysPageController,
    ProjectTokensPageController,
    MembersPageController,
    AuditPageController,
  ],
  providers: [DashboardContextGuard, AuditNamesReader],
})
export class DashboardModule {}
