import { DynamicModule, Module } from '@nestjs/common';
import { AuditModule } from '@app/audit';
import { AppConfig, AppConfigModule } from '@app/config';
import { CredentialsModule } from '@app/credentials';
import { DatabaseModule } from '@app/database';
import { IdentityModule } from '@app/identity';
import { OAuthStoreModule } from '@app/oauth';
import { PeopleModule } from '@app/people';
import { AuditSinkSecretsModule } from '@app/audit-sinks';
import { ApprovalWebhookSecretsModule } from '@app/policy';
import { ScimTokensModule } from '@app/scim-tokens';

/**
 * The command line's application context: the same modules the gateway runs (configuration,
 * database, accounts and their audit, identity providers' domains), without HTTP and without the periodic cleanups. The
 * migrations are run by the commands themselves, so `migrate` can say what it applied.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        AppConfigModule.forRoot(config),
        DatabaseModule.forRoot({ migrationsRun: false }),
        CredentialsModule,
        // The credentials' grants refer to OAuth clients: a data source missing a referenced entity does not start.
        OAuthStoreModule,
        AuditModule,
        PeopleModule,
        // Members' changes end the person's `scim_` tokens: MembersService (of PeopleModule) needs its provider.
        ScimTokensModule,
        IdentityModule,
        AuditSinkSecretsModule,
        ApprovalWebhookSecretsModule,
      ],
    };
  }
}
