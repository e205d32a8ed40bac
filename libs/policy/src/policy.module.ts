import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { CapabilitiesModule } from '@app/capabilities';
import { CredentialStoreModule } from '@app/credential-store';
import { TenancyModule } from '@app/tenancy';
import { OrganizationPolicy } from './entities/organization-policy.entity';
import { PolicyController } from './policy.controller';
import { PolicyGate } from './policy-gate';
import { PolicyRepository } from './policy.repository';
import { PolicyService } from './policy.service';

/** The organisation's policy over agents' calls: its table, the per-call check, the REST routes. */
@Module({
  imports: [TypeOrmModule.forFeature([OrganizationPolicy]), CapabilitiesModule, CredentialStoreModule, TenancyModule, AuditModule],
  controllers: [PolicyController],
  providers: [PolicyRepository, PolicyGate, PolicyService],
  exports: [PolicyGate, PolicyService],
})
export class PolicyModule {}
