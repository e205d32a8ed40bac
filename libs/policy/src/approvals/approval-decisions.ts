import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { type AuditAction, type AuditActor, AuditService } from '@app/audit';
import { AGENT_PERMISSION_NAMES, CapabilityRegistry } from '@app/capabilities';
import { canonicalSha256, ConflictError, DomainError, isUuid, NotFoundError } from '@app/common';
import { DerivedTokenStore, OAuthGrantStore } from '@app/credential-store';
import { MembershipDirectory, type MembershipRole, ProjectDirectory } from '@app/tenancy';
import type { PolicyRule } from '../policy-rules';
import type { ApprovalStatus } from '../entities/approval.entity';
import { ApprovalDecisionsRepository, type StoredApproval } from './approval-decisions.repository';
import { CONSUME_WITHIN_SECONDS } from './approvals.repository';
import { approverIds, ApprovalRequests } from './approval-requests';

/** Who is looking at an approval: a person and their role in its organisation. */
export interface ApprovalViewer {
  userId: string;
  role: MembershipRole;
}

export type ApprovalDecision = 'approve' | 'deny';

/** An approval as its readers get it (REST and the page). */
export interface ApprovalView extends StoredApproval {
  url: string;
  risk: string | null;
  /** Distinct approvals so far and how many the rule needs. */
  approvals: { count: number; needed: number };
  /** Whether the viewer may decide it now (an eligible approver, and it is pending). */
  canDecide: boolean;
}

/** The decider is not among the rule's approvers (or is the requester of a rule without `selfApproval`). */
export class NotAnApproverError extends DomainError {
  constructor() {
    super('not_an_approver', "You are not one of this approval's approvers", 'forbidden');
  }
}

/**
 * Reading and deciding approvals (SPEC §10 "Approval statuses"): readable by the rule's approvers,
 * the requester and the organisation's admins (anyone else: not found); decided by an approver
 * who is still one, while the credential is alive (else the approval is voided), in one
 * conditional statement so that concurrent decisions make exactly one outcome. A pending approval
 * past its lifetime is marked expired when it is next read. Every step is audited with the binding.
 */
@Injectable()
export class ApprovalDecisions {
  constructor(
    private readonly dataSource: DataSource,
    private readonly approvals: ApprovalDecisionsRepository,
    private readonly requests: ApprovalRequests,
    private readonly memberships: MembershipDirectory,
    private readonly projects: ProjectDirectory,
    private readonly grants: OAuthGrantStore,
    private readonly tokens: DerivedTokenStore,
    private readonly registry: CapabilityRegistry,
    private readonly audit: AuditService,
  ) {}

  /** The approval, if the viewer may read it (else `NotFoundError`, as for one that does not exist). */
  async view(organizationId: string, id: string, viewer: ApprovalViewer): Promise<ApprovalView> {
    const approval = isUuid(id) ? await this.approvals.find(organizationId, id) : null;
    if (!approval) throw new NotFoundError('Approval');
    const eligible = await this.eligibleApprovers(approval);
    if (!this.mayRead(approval, viewer, eligible)) throw new NotFoundError('Approval');
    return this.present(await this.settle(approval), viewer, eligible);
  }

  /** The organisation of an approval named by id alone (the page), or null when there is none. */
  async organizationOf(id: string): Promise<string | null> {
    if (!isUuid(id)) return null;
    return (await this.approvals.findAnywhere(id))?.organizationId ?? null;
  }

  /** The approvals the viewer may read, newest first (at most 200), optionally of one status. */
  async list(organizationId: string, viewer: ApprovalViewer, status: ApprovalStatus | null): Promise<ApprovalView[]> {
    const rows = await this.approvals.list(organizationId, status, 200);
    const views: ApprovalView[] = [];
    for (const row of rows) {
      const eligible = await this.eligibleApprovers(row);
      if (!this.mayRead(row, viewer, eligible)) continue;
      const settled = await this.settle(row);
      if (status && settled.status !== status) continue;
      views.push(this.present(settled, viewer, eligible));
    }
    return views;
  }

  /**
   * The current state of what the held call would change (e.g. the title of the task to delete),
   * from its capability; null when the tool shows none or the arguments no longer validate.
   */
  async targetOf(approval: StoredApproval): Promise<string | null> {
    const definition = this.registry.toolsetFor(AGENT_PERMISSION_NAMES).byName.get(approval.tool)?.definition;
    const parsed = definition?.inputSchema.safeParse(approval.arguments);
    if (!definition?.describeTarget || !parsed?.success) return null;
    const credential = approval.credentialKind === 'derived' ? { tokenId: approval.tokenId, serviceKeyId: null, grantId: null } : { tokenId: approval.tokenId, serviceKeyId: null, grantId: approval.credentialId };
    return definition.describeTarget(parsed.data, {
      organizationId: approval.organizationId,
      projectId: approval.projectId,
      permissions: [],
      credential: { ...credential, clientId: approval.clientId },
    });
  }

  /** The credential's approvals before this one (the page shows them), newest first. */
  async earlier(approval: StoredApproval): Promise<StoredApproval[]> {
    return this.approvals.earlierOfCredential(approval, 10);
  }

  /**
   * One person's decision: `approve` counts them once (the status becomes `approved` at the rule's
   * count), `deny` ends it. 403 `not_an_approver`, 409 `approval_not_pending` (decided, expired,
   * voided, consumed), 409 `already_approved` (the same approver twice), 409 `credential_ended`.
   */
  async decide(organizationId: string, id: string, viewer: ApprovalViewer, decision: ApprovalDecision, reason: string | null, actor: AuditActor): Promise<ApprovalView> {
    const found = await this.view(organizationId, id, viewer);
    if (found.status === 'voided' && found.voidedReason === 'credential_ended') throw credentialEnded();
    if (found.status !== 'pending') throw notPending(found.status, found.voidedReason);
    const eligible = await this.eligibleApprovers(found);
    if (!eligible.includes(viewer.userId)) throw new NotAnApproverError();
    if (!(await this.credentialAlive(found))) {
      await this.voidOne(found, 'credential_ended');
      throw credentialEnded();
    }
    const decided = await this.dataSource.transaction(async (em) => {
      const row = decision === 'approve' ? await this.approvals.approve(em, id, viewer.userId, reason) : await this.approvals.deny(em, id, viewer.userId, reason);
      if (!row) return null;
      const settings = row.settings;
      const action: AuditAction = decision === 'deny' ? 'approval.denied' : 'approval.approved';
      await this.record(em, row, action, actor, { decision, approvals: row.approvedBy.length, needed: settings.count, status: row.status });
      return row;
    });
    if (decided) return this.present(decided, viewer, eligible);
    const now = await this.approvals.find(organizationId, id);
    if (decision === 'approve' && now?.status === 'pending' && now.approvedBy.includes(viewer.userId)) {
      throw new ConflictError('already_approved', 'You already approved this call; it needs another approver');
    }
    throw notPending(now ? (await this.settle(now)).status : 'voided');
  }

  /**
   * Voids an approval that can no longer be used (the credential ended, the person left, the
   * project or the rule changed); audited `approval.voided`. False when it was not pending or approved.
   */
  async voidOne(approval: StoredApproval, reason: string, em: EntityManager = this.dataSource.manager): Promise<boolean> {
    const row = await this.approvals.void(em, approval.id, reason);
    if (row) await this.record(em, row, 'approval.voided', SYSTEM, { reason });
    return row !== null;
  }

  /**
   * Voids the organisation's pending and approved approvals whose rule is gone or changed (a saved
   * policy), in the caller's transaction; audited `approval.voided` with the reason `rule_changed`.
   */
  async voidChangedRules(em: EntityManager, organizationId: string, rules: readonly PolicyRule[]): Promise<void> {
    const kept = rules.filter((r) => r.effect === 'approve').map((r) => `${r.id}:${canonicalSha256(r)}`);
    for (const row of await this.approvals.voidRulesGone(em, organizationId, kept)) {
      await this.record(em, row, 'approval.voided', SYSTEM, { reason: 'rule_changed' });
    }
  }

  /**
   * An approval as it stands now: a pending one past its lifetime, or an approved one unused 600 s
   * after its decision, is marked expired; a live one is voided when the requester is no longer a
   * member (`member_removed`), its project was deleted (`project_deleted`) or its credential ended
   * (`credential_ended`). Each change is audited.
   */
  private async settle(approval: StoredApproval): Promise<StoredApproval> {
    const em = this.dataSource.manager;
    const now = Date.now();
    const lapsed =
      (approval.status === 'pending' && approval.expiresAt.getTime() <= now) ||
      (approval.status === 'approved' && approval.decidedAt !== null && approval.decidedAt.getTime() + CONSUME_WITHIN_SECONDS * 1000 <= now);
    if (lapsed) {
      const expired = await this.approvals.expire(em, approval.id);
      if (expired) {
        await this.record(em, expired, 'approval.expired', SYSTEM, {});
        return expired;
      }
    }
    if (approval.status !== 'pending' && approval.status !== 'approved') return approval;
    const reason = await this.endedBy(approval);
    if (!reason) return approval;
    const voided = await this.approvals.void(em, approval.id, reason);
    if (!voided) return (await this.approvals.find(approval.organizationId, approval.id)) ?? approval;
    await this.record(em, voided, 'approval.voided', SYSTEM, { reason });
    return voided;
  }

  /** Why a live approval can no longer be used, or null. */
  private async endedBy(approval: StoredApproval): Promise<string | null> {
    if (approval.userId && !(await this.memberships.roleOf(approval.userId, approval.organizationId))) return 'member_removed';
    if (!(await this.projects.namesOf([approval.projectId])).has(approval.projectId)) return 'project_deleted';
    if (!(await this.credentialAlive(approval))) return 'credential_ended';
    return null;
  }

  /** The members who may decide it now: the rule's approvers, without the requester unless `selfApproval`. */
  private async eligibleApprovers(approval: StoredApproval): Promise<string[]> {
    const settings = approval.settings;
    const ids = await approverIds(this.memberships, approval.organizationId, settings.approvers);
    return ids.filter((id) => id !== approval.userId || (settings.selfApproval && approval.credentialKind !== 'derived'));
  }

  private mayRead(approval: StoredApproval, viewer: ApprovalViewer, eligible: string[]): boolean {
    return viewer.role === 'admin' || viewer.userId === approval.userId || eligible.includes(viewer.userId);
  }

  private credentialAlive(approval: StoredApproval): Promise<boolean> {
    return approval.credentialKind === 'derived' ? this.tokens.isLive(approval.credentialId) : this.grants.isLive(approval.credentialId);
  }

  private present(approval: StoredApproval, viewer: ApprovalViewer, eligible: string[]): ApprovalView {
    return {
      ...approval,
      url: this.requests.urlOf(approval.id),
      risk: this.registry.riskOf(approval.tool) ?? null,
      approvals: { count: approval.approvedBy.length, needed: approval.settings.count },
      canDecide: approval.status === 'pending' && eligible.includes(viewer.userId) && !approval.approvedBy.includes(viewer.userId),
    };
  }

  private async record(em: EntityManager, approval: StoredApproval, action: AuditAction, actor: AuditActor, extra: Record<string, unknown>): Promise<void> {
    await this.audit.record(em, {
      organizationId: approval.organizationId,
      projectId: approval.projectId,
      actorType: actor.actorType,
      actorId: actor.actorId,
      origin: actor.origin,
      action,
      targetType: 'approval',
      targetId: approval.id,
      metadata: { ...bindingOf(approval), bindingSha256: approval.bindingSha256, ...extra },
    });
  }
}

/** The binding an approval's audit records carry (never the arguments themselves). */
export function bindingOf(a: StoredApproval): Record<string, unknown> {
  return {
    organizationId: a.organizationId,
    projectId: a.projectId,
    tool: a.tool,
    argumentsSha256: a.argumentsSha256,
    clientId: a.clientId,
    credentialKind: a.credentialKind,
    credentialId: a.credentialId,
    userId: a.userId,
    ruleId: a.ruleId,
    ruleSha256: a.ruleSha256,
  };
}

const SYSTEM: AuditActor = { actorType: 'system', actorId: null };

function credentialEnded(): ConflictError {
  return new ConflictError('credential_ended', 'The credential that made this call has ended (revoked or expired); the approval is voided');
}

function notPending(status: ApprovalStatus, reason?: string | null): ConflictError {
  return new ConflictError('approval_not_pending', `This approval is ${status}${reason ? ` (${reason.replace(/_/g, ' ')})` : ''}; only a pending approval can be decided`);
}
