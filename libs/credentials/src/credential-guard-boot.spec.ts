import { Test } from '@nestjs/testing';
import { AppConfig } from '@app/config';
import { AgentTokenService } from './agent-token.service';
import { CredentialGuard, requireScimTokenResolver } from './credential.guard';
import { OrganizationAccessPolicy } from './organization-access.policy';
import { ScimTokenResolver } from './scim-token.resolver';
import { SessionTokenService } from '@app/people';

/** The guard's collaborators that play no part in start-up; only the SCIM resolver's presence matters here. */
const others = [OrganizationAccessPolicy, AgentTokenService, SessionTokenService, AppConfig].map((provide) => ({ provide, useValue: {} }));

describe('CredentialGuard at start-up', () => {
  it('an HTTP application without the SCIM token resolver fails to start, naming what is missing', async () => {
    const module = await Test.createTestingModule({ providers: [CredentialGuard, ...others] }).compile();
    const app = module.createNestApplication();
    expect(() => requireScimTokenResolver(app)).toThrow(/^No ScimTokenResolver is provided: the application must import the SCIM tokens library \(ScimTokensModule of @app\/scim-tokens\)/);
    // A context without routes (the command line) starts without it.
    await app.init();
    await app.close();
  });

  it('starts when the SCIM library provides it', async () => {
    const resolver = { resolve: async () => null };
    const module = await Test.createTestingModule({ providers: [CredentialGuard, ...others, { provide: ScimTokenResolver, useValue: resolver }] }).compile();
    const app = module.createNestApplication();
    expect(() => requireScimTokenResolver(app)).not.toThrow();
    await app.init();
    await app.close();
  });
});
