import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { AuthModule } from '@app/auth';
import { AppConfig, AppConfigModule } from '@app/config';
import { CredentialsModule } from '@app/credentials';
import { DatabaseModule } from '@app/database';
import { AuthorizationCode, AuthorizationRequest, OAuthClient, OAuthGrant, RefreshToken } from '@app/oauth';
import { ServiceKey } from '@app/service-keys';
import { Task } from '@app/tasks';

/**
 * Entities of the modules the command line does not load. The entities it does use refer to
 * them (an agent token to its grant and service key, …), and a data source whose
 * entities refer to unknown ones does not start.
 */
const REFERENCED_ENTITIES = [ServiceKey, OAuthClient, OAuthGrant, AuthorizationRequest, AuthorizationCode, RefreshToken, Task];

/**
 * The command line's application context: the same modules the gateway runs (configuration,
 * database, accounts and their audit), without HTTP and without the periodic cleanups. The
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
        TypeOrmModule.forFeature(REFERENCED_ENTITIES),
        CredentialsModule,
        AuditModule,
        AuthModule,
      ],
    };
  }
}
