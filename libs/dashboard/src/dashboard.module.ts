import { Module } from '@nestjs/common';
import { AuthModule } from '@app/auth';
import { OrganizationsModule } from '@app/organizations';
import { AssetsController } from './assets.controller';
import { DashboardContextGuard } from './dashboard-context';
import { HomeController } from './home.controller';
import { ProjectsPageController } from './projects/projects-page.controller';
import { MembersPageController } from './members/members-page.controller';

/**
 * The dashboard: server-rendered pages for everything a person does in an organisation. Its
 * forms post to its own routes, which call the same services as the REST routes (never REST
 * itself, never the tables).
 */
@Module({
  imports: [AuthModule, OrganizationsModule],
  controllers: [
    AssetsController,
    HomeController,
    ProjectsPageController,
    MembersPageController,
  ],
  providers: [DashboardContextGuard],
})
export class DashboardModule {}
