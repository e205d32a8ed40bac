import { IdentityModule } from '@app/identity';
import { DynamicModule, Module, Provider, Type, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { ApiKeysModule } from '@app/api-keys';
import { AuditModule } from '@app/audit';
import { AuthModule } from '@app/auth';
import { validationException } from '@app/common';
import { AppConfig, AppConfigModule } from '@app/config';
import { CredentialsModule } from '@app/credentials';
import { DashboardModule } from '@app/dashboard';
import { DatabaseModule, DatabaseModuleOptions } from '@app/database';
import { DiscoveryModule } from '@app/discovery';
import { HealthModule } from '@app/health';
import { McpModule } from '@app/mcp';
import { ObservabilityModule } from '@app/observability';
import { OAuthModule } from '@app/oauth';
import { OrganizationsModule, ProjectCapabilitiesModule } from '@app/organizations';
import { PolicyModule } from '@app/policy';
import { AuditSinksModule } from '@app/audit-sinks';
import { ScimModule } from '@app/scim';
import { ServiceKeysModule } from '@app/service-keys';
import { SsoModule } from '@app/sso';
import { TasksModule } from '@app/tasks';
import { AppExceptionFilter } from './app-exception.filter';
import { JsonBodyInterceptor } from './json-body.interceptor';
import { StoredSecretsAtStart } from './stored-secrets-at-start';

export interface AppModuleOptions {
  database?: DatabaseModuleOptions;
  /** Controllers mounted beside the features' own (tests mount probe routes with it). */
  controllers?: Type[];
  /** Providers added to the application module (tests register throwaway global enhancers with it). */
  providers?: Provider[];
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        DatabaseModule.forRoot(options.database),
        ObservabilityModule,
        ScheduleModule.forRoot(),
        CredentialsModule,
        IdentityModule,
        AuditModule,
        DiscoveryModule,
        HealthModule,
        McpModule,
        ProjectCapabilitiesModule,
        AuthModule,
        OrganizationsModule,
        ApiKeysModule,
        ServiceKeysModule,
        TasksModule,
        OAuthModule,
        SsoModule,
        DashboardModule,
        ScimModule,
        PolicyModule,
        AuditSinksModule,
      ],
      controllers: options.controllers ?? [],
      providers: [
        { provide: APP_FILTER, useClass: AppExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: JsonBodyInterceptor },
        {
          provide: APP_PIPE,
          useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true, exceptionFactory: validationException }),
        },
        StoredSecretsAtStart,
        ...(options.providers ?? []),
      ],
    };
  }
}
