import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { CapabilitiesModule } from '@app/capabilities';
import { CredentialStoreModule } from '@app/credential-store';
import { TenancyModule } from '@app/tenancy';
import { ApprovalDecisions } from './approvals/approval-decisions';
import { ApprovalDecisionsRepository } from './approvals/approval-decisions.repository';
import { ApprovalRequests } from './approvals/approval-requests';
import { ApprovalsController } from './approvals/approvals.controller';
import { ApprovalsRepository } from './approvals/approvals.repository';
import { Approval } from './entities/approval.entity';
import { ApprovalWebhook } from './entities/approval-webhook.entity';
import { ApprovalWebhookController } from './approvals/webhook/approval-webhook.controller';
import { ApprovalWebhookService } from './approvals/webhook/approval-webhook.service';
import { ApprovalWebhooksRepository } from './approvals/webhook/approval-webhooks.repository';
import { OrganizationPolicy } from './entities/organization-policy.entity';
import { PolicyController } from './policy.controller';
import { PolicyGate } from './policy-gate';
import { PolicyRepository } from './policy.repository';
import { PolicyService } from './policy.service';
import { ApprovalWebhookSecretsModule } from './approvals/webhook/approval-webhook-stored-secrets';

/** The organisation's policy over agents' calls: its table, the per-call check, the REST routes. */
@Module({
  imports: [TypeOrmModule.forFeature([OrganizationPolicy, Approval, ApprovalWebhook]), CapabilitiesModule, CredentialStoreModule, TenancyModule, AuditModule, ApprovalWebhookSecretsModule],
  controllers: [PolicyController, ApprovalsController, ApprovalWebhookController],
  providers: [PolicyRepository, PolicyGate, PolicyService, ApprovalsRepository, ApprovalRequests, ApprovalDecisionsRepository, ApprovalDecisions, ApprovalWebhookService],
  exports: [PolicyGate, PolicyService, ApprovalDecisions, ApprovalWebhookSecretsModule],
})
export class PolicyModule {}
