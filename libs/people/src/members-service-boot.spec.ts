import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { AuditService } from '@app/audit';
import { CredentialRevoker } from '@app/credential-store';
import { ScimTokenOffboarding } from './scim-token-offboarding';
import { InvitationDirectory, MembershipDirectory, OrganizationDirectory, UserDirectory } from '@app/tenancy';
import { MembersService } from './members.service';

/** The service's collaborators that play no part in start-up; only the SCIM token offboarding's presence matters here. */
const others = [DataSource, AuditService, CredentialRevoker, UserDirectory, OrganizationDirectory, MembershipDirectory, InvitationDirectory].map((provide) => ({
  provide,
  useValue: {},
}));

describe('MembersService at start-up', () => {
  it('an application without the SCIM library’s token offboarding fails to start, naming what is missing', async () => {
    const building = Test.createTestingModule({ providers: [MembersService, ...others] }).compile();
    await expect(building).rejects.toThrow(/can't resolve dependencies of the MembersService \(.*ScimTokenOffboarding at index \[7\]/);
  });

  it('starts when the SCIM library provides it', async () => {
    const offboarding = { endOrHandOverCreatedBy: async () => ({ outcome: 'revoked' as const, tokens: [] }) };
    const module = await Test.createTestingModule({ providers: [MembersService, ...others, { provide: ScimTokenOffboarding, useValue: offboarding }] }).compile();
    const app = module.createNestApplication();
    await app.init();
    expect(app.get(MembersService)).toBeInstanceOf(MembersService);
    await app.close();
  });
});
