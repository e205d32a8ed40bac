import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AuditAction, AuditService } from '@app/audit';
import { canonicalSha256, DomainError } from '@app/common';
import { AppConfig } from '@app/config';
import { MembershipDirectory } from '@app/tenancy';
import { type AgentCall } from '../call-facts';
import { approvalSettings, type ApprovalSettings, type CredentialKind, type PolicyRule } from '../policy-rules';
import { type ApprovalBinding, ApprovalsRepository } from './approvals.repository';
import { ApprovalWebhookService } from './webhook/approval-webhook.service';

export const MAX_PENDING_PER_CREDENTIAL = 20;
export const MAX_REQUESTS_PER_HOUR = 60;
export const DENIALS_BEFORE_COOL_DOWN = 5;

/** A call held for approval: the MCP layer answers it with the approval's URL. */
export class ApprovalRequired extends DomainError {
  constructor(
    readonly approvalId: string,
    readonly url: string,
    readonly ruleId: string,
    /** The rule's lifetime of a pending approval (a 2026-07-28 `requestState` lives this plus 600 s). */
    readonly ttlSeconds: number,
  ) {
    super('approval_required', `This call needs a person's approval (rule "${ruleId}"): ${url} — call again once it is approved.`, 'forbidden');
  }
}

/** A call held for approval that no request can be made for (no approver, a cap, the cool-down). */
export class ApprovalUnavailable extends DomainError {
  constructor(code: string, message: string) {
    super(code, message, 'forbidden');
  }
}

/** The people who may approve under these settings (ids of members of the organisation). */
export function approverIds(memberships: MembershipDirectory, organizationId: string, approvers: ApprovalSettings['approvers']): Promise<string[]> {
  const filter = approvers === 'admins' ? { role: 'admin' as const } : approvers === 'members' ? {} : { among: approvers.userIds };
  return memberships.memberIds(organizationId, filter);
}

/**
 * The run-time side of an `approve` rule (SPEC §10 "Approve"): a call consumes an approval of its
 * exact binding when one was approved in the last 600 s (atomically, before the tool runs), else
 * gets its pending approval (the same one while it is pending) or a new one, within the caps of
 * its credential. Each step is audited with the binding.
 */
@Injectable()
export class ApprovalRequests {
  constructor(
    private readonly dataSource: DataSource,
    private readonly approvals: ApprovalsRepository,
    private readonly memberships: MembershipDirectory,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
    private readonly webhook: ApprovalWebhookService,
  ) {}

  urlOf(approvalId: string): string {
    return `${this.config.baseUrl}/approvals/${approvalId}`;
  }

  /** Returns when the call may run (its approval consumed); else throws `ApprovalRequired` or `ApprovalUnavailable`. */
  async hold(call: AgentCall, tool: string, args: Record<string, unknown>, rule: PolicyRule, kind: CredentialKind): Promise<void> {
    const settings = approvalSettings(rule);
    const credentialId = kind === 'derived' ? call.tokenId : (call.grantId ?? call.tokenId);
    const binding: ApprovalBinding = {
      organizationId: call.organizationId,
      projectId: call.projectId,
      tool,
      argumentsSha256: canonicalSha256(args),
      clientId: call.clientId,
      credentialKind: kind,
      credentialId,
      userId: kind === 'derived' ? null : call.userId,
      ruleId: rule.id,
      ruleSha256: canonicalSha256(rule),
    };
    const bindingSha256 = canonicalSha256(binding);
    const consumed = await this.approvals.consume(bindingSha256);
    if (consumed) {
      await this.record(call, 'approval.consumed', consumed, binding);
      return;
    }
    const eligible = (await approverIds(this.memberships, call.organizationId, settings.approvers)).filter(
      (id) => id !== binding.userId || (settings.selfApproval && kind !== 'derived'),
    );
    if (eligible.length < settings.count) {
      throw new ApprovalUnavailable(
        'no_approver',
        `This call needs approval under rule "${rule.id}", but no one can approve it: the rule's approvers do not include ${settings.count === 2 ? 'two people' : 'anyone'} other than the person making the call.`,
      );
    }
    const { id, created, expiresAt } = await this.dataSource.transaction(async (em) => {
      await this.approvals.lockCredential(em, credentialId);
      const expired = await this.approvals.expireBinding(em, bindingSha256);
      if (expired) await this.record(call, 'approval.expired', expired.id, binding, em);
      const pending = await this.approvals.pendingFor(em, bindingSha256);
      if (pending) return { id: pending.id, created: false, expiresAt: pending.expires_at };
      const load = await this.approvals.loadOf(em, credentialId);
      if (load.deniedLastHour >= DENIALS_BEFORE_COOL_DOWN) {
        throw new ApprovalUnavailable('approval_cool_down', `This credential's calls were denied ${load.deniedLastHour} times in the last hour; no approval can be requested for an hour after 5 denials.`);
      }
      if (load.pending >= MAX_PENDING_PER_CREDENTIAL) {
        throw new ApprovalUnavailable('too_many_pending_approvals', `This credential has ${MAX_PENDING_PER_CREDENTIAL} approvals pending, the most it may have; wait for them to be decided.`);
      }
      if (load.requestedLastHour >= MAX_REQUESTS_PER_HOUR) {
        throw new ApprovalUnavailable('too_many_approval_requests', `This credential requested ${MAX_REQUESTS_PER_HOUR} approvals in the last hour, the most it may; try again later.`);
      }
      const row = await this.approvals.insert(em, { ...binding, bindingSha256, tokenId: call.tokenId, arguments: args, settings, ruleDescription: rule.description ?? null });
      if (!row) throw new Error('approvals: a pending approval appeared under the credential lock');
      await this.record(call, 'approval.requested', row.id, binding, em);
      return { id: row.id, created: true, expiresAt: row.expires_at };
    });
    if (created) {
      this.webhook.notify({ id, organizationId: call.organizationId, projectId: call.projectId, tool, ruleId: rule.id, url: this.urlOf(id), expiresAt });
    } else await this.record(call, 'approval.pending', id, binding);
    throw new ApprovalRequired(id, this.urlOf(id), rule.id, settings.ttlSeconds);
  }

  private async record(call: AgentCall, action: AuditAction, approvalId: string, binding: ApprovalBinding, em = this.dataSource.manager): Promise<void> {
    await this.audit.record(em, {
      organizationId: call.organizationId,
      projectId: call.projectId,
      actorType: 'agent_token',
      actorId: call.tokenId,
      action,
      targetType: 'approval',
      targetId: approvalId,
      metadata: { ...binding, bindingSha256: canonicalSha256(binding) },
    });
  }
}
