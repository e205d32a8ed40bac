import { Module } from '@nestjs/common';
import { ApiKeysModule } from '@app/api-keys';
import { AuditSinksModule } from '@app/audit-sinks';
import { CapabilitiesModule } from '@app/capabilities';
import { IdentityModule } from '@app/identity';
import { OAuthModule } from '@app/oauth';
import { PolicyModule } from '@app/policy';
import { TenancyModule } from '@app/tenancy';
import { AccountPageController } from './account/account-page.controller';
import { ApiKeysPageController } from './api-keys/api-keys-page.controller';
import { ScimTokensPageController } from './scim-tokens/scim-tokens-page.controller';
import { OrganizationClientPageController } from './clients/organization-client-page.controller';
import { ClientPolicyPageController } from './clients/client-policy-page.controller';
import { ClientsPageController } from './clients/clients-page.controller';
import { PeopleModule } from '@app/people';
import { ProjectsModule } from '@app/projects';
import { ServiceKeysModule } from '@app/service-keys';
import { ScimTokensModule } from '@app/scim-tokens';
import { AssetsController } from './assets.controller';
import { AuditNamesReader } from './audit/audit-names';
import { AuditPageController } from './audit/audit-page.controller';
import { AuditSinksPageController } from './audit/audit-sinks-page.controller';
import { DashboardContextGuard } from './dashboard-context';
import { HomeController } from './home.controller';
import { NotFoundPage } from './not-found-page';
import { InvitationPageController } from './invitation/invitation-page.controller';
import { MembersPageController } from './members/members-page.controller';
import { ProjectsPageController } from './projects/projects-page.controller';
import { ProjectTokensPageController } from './service-keys/project-tokens-page.controller';
import { ServiceKeysPageController } from './service-keys/service-keys-page.controller';
import { SingleSignOnPageController } from './single-sign-on/single-sign-on-page.controller';
import { PolicyPageController } from './policy/policy-page.controller';
import { ApprovalPageController, ApprovalsListPageController } from './approvals/approval-page.controller';
import { PageRecentSignIn } from './recent-sign-in-form';

/**
 * The dashboard: server-rendered pages for everything a person does in an organisation. Its
 * forms post to its own routes, which call the same services as the REST routes (never REST
 * itself, never the tables).
 */
@Module({
  imports: [AuditSinksModule, ProjectsModule, PeopleModule, ServiceKeysModule, ApiKeysModule, OAuthModule, TenancyModule, IdentityModule, ScimTokensModule, PolicyModule, CapabilitiesModule],
  controllers: [
    AssetsController,
    HomeController,
    InvitationPageController,
    AccountPageController,
    ProjectsPageController,
    ServiceKeysPageController,
    ProjectTokensPageController,
    ApiKeysPageController,
    ScimTokensPageController,
    OrganizationClientPageController,
    ClientsPageController,
    ClientPolicyPageController,
    MembersPageController,
    AuditPageController,
    AuditSinksPageController,
    SingleSignOnPageController,
    PolicyPageController,
    ApprovalPageController,
    ApprovalsListPageController,
  ],
  providers: [DashboardContextGuard, AuditNamesReader, NotFoundPage, PageRecentSignIn],
  exports: [NotFoundPage],
})
export class DashboardModule {}
