import { Test } from '@nestjs/testing';
import { AppConfig } from '@app/config';
import { AgentTokenService } from './agent-token.service';
import { CredentialGuard } from './credential.guard';
import { OrganizationAccessPolicy } from './organization-access.policy';
import { ScimTokenResolver } from './scim-token.resolver';
import { SessionTokenService } from './session-token.service';

/** The guard's collaborators that play no part in start-up; only the SCIM resolver's presence matters here. */
const others = [OrganizationAccessPolicy, AgentTokenService, SessionTokenService, AppConfig].map((provide) => ({ provide, useValue: {} }));

describe('CredentialGuard at start-up', () => {
  it('an application without the SCIM token resolver fails to start, naming what is missing', async () => {
    const module = await Test.createTestingModule({ providers: [CredentialGuard, ...others] }).compile();
    await expect(module.createNestApplication().init()).rejects.toThrow(/No ScimTokenResolver is provided: the application must import the SCIM library \(ScimModule\)/);
  });

  it('starts when the SCIM library provides it', async () => {
    const resolver = { resolve: async () => null };
    const module = await Test.createTestingModule({ providers: [CredentialGuard, ...others, { provide: ScimTokenResolver, useValue: resolver }] }).compile();
    const app = await module.createNestApplication().init();
    await app.close();
  });
});
