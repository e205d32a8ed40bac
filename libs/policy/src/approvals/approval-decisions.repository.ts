import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { statement, statementIn } from '@app/database';
import type { ApprovalStatus } from '../entities/approval.entity';
import type { ApprovalSettings } from '../policy-rules';
import { CONSUME_WITHIN_SECONDS } from './approvals.repository';

/** An approval as its readers see it (the row, in the shape the REST answer and the page use). */
export interface StoredApproval {
  id: string;
  organizationId: string;
  projectId: string;
  tool: string;
  arguments: Record<string, unknown>;
  argumentsSha256: string;
  clientId: string | null;
  credentialKind: string;
  credentialId: string;
  tokenId: string;
  userId: string | null;
  ruleId: string;
  ruleSha256: string;
  ruleDescription: string | null;
  bindingSha256: string;
  settings: Required<ApprovalSettings>;
  status: ApprovalStatus;
  approvedBy: string[];
  deniedBy: string | null;
  decisionReason: string | null;
  voidedReason: string | null;
  createdAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  consumedAt: Date | null;
}

const COLUMNS = `id, organization_id AS "organizationId", project_id AS "projectId", tool, arguments, arguments_sha256 AS "argumentsSha256",
  client_id AS "clientId", credential_kind AS "credentialKind", credential_id AS "credentialId", token_id AS "tokenId", user_id AS "userId",
  rule_id AS "ruleId", rule_sha256 AS "ruleSha256", rule_description AS "ruleDescription", binding_sha256 AS "bindingSha256", settings, status,
  approved_by AS "approvedBy", denied_by AS "deniedBy", decision_reason AS "decisionReason", voided_reason AS "voidedReason",
  created_at AS "createdAt", expires_at AS "expiresAt", decided_at AS "decidedAt", consumed_at AS "consumedAt"`;

const FIND = statement('approvals.find', `SELECT ${COLUMNS} FROM approvals WHERE id = $1 AND organization_id = $2`);
const FIND_ANY = statement('approvals.find_any', `SELECT ${COLUMNS} FROM approvals WHERE id = $1`);
const LIST = statement(
  'approvals.list',
  `SELECT ${COLUMNS} FROM approvals WHERE organization_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, id LIMIT $3`,
);
const EARLIER = statement(
  'approvals.earlier_of_credential',
  `SELECT ${COLUMNS} FROM approvals WHERE credential_id = $1 AND id <> $2 AND created_at <= $3 ORDER BY created_at DESC LIMIT $4`,
);
// One statement per decision: of an approve and a deny at the same moment, the second re-reads the
// row the first changed and finds it no longer pending (or, with `count: 2`, counts the first).
const APPROVE = statement(
  'approvals.approve',
  `UPDATE approvals SET approved_by = array_append(approved_by, $2::uuid),
     status = CASE WHEN cardinality(approved_by) + 1 >= (settings->>'count')::int THEN 'approved' ELSE 'pending' END,
     decided_at = CASE WHEN cardinality(approved_by) + 1 >= (settings->>'count')::int THEN now() ELSE NULL END,
     decision_reason = COALESCE($3, decision_reason)
   WHERE id = $1 AND status = 'pending' AND expires_at > now() AND NOT ($2::uuid = ANY(approved_by))
   RETURNING ${COLUMNS}`,
);
const DENY = statement(
  'approvals.deny',
  `UPDATE approvals SET status = 'denied', denied_by = $2, decided_at = now(), decision_reason = $3
   WHERE id = $1 AND status = 'pending' AND expires_at > now()
   RETURNING ${COLUMNS}`,
);
// A pending approval past its lifetime, or an approved one not consumed within 600 s of the decision.
const EXPIRE = statement(
  'approvals.expire',
  `UPDATE approvals SET status = 'expired'
   WHERE id = $1 AND ((status = 'pending' AND expires_at <= now())
                      OR (status = 'approved' AND decided_at <= now() - make_interval(secs => ${CONSUME_WITHIN_SECONDS})))
   RETURNING ${COLUMNS}`,
);
const VOID_RULES_GONE = statement(
  'approvals.void_rules_gone',
  `UPDATE approvals SET status = 'voided', voided_reason = 'rule_changed'
   WHERE organization_id = $1 AND status IN ('pending', 'approved') AND NOT ((rule_id || ':' || rule_sha256) = ANY($2::text[]))
   RETURNING ${COLUMNS}`,
);
const VOID = statement(
  'approvals.void',
  `UPDATE approvals SET status = 'voided', voided_reason = $2 WHERE id = $1 AND status IN ('pending', 'approved') RETURNING ${COLUMNS}`,
);

/** The reads and decisions of `approvals` (the requests and consumption: `ApprovalsRepository`). */
@Injectable()
export class ApprovalDecisionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(organizationId: string, id: string): Promise<StoredApproval | null> {
    const [row] = await statementIn<StoredApproval>(this.dataSource.manager, FIND, [id, organizationId]);
    return row ?? null;
  }

  /** By id alone (the page at `/approvals/:id`, whose organisation the row names). */
  async findAnywhere(id: string): Promise<StoredApproval | null> {
    const [row] = await statementIn<StoredApproval>(this.dataSource.manager, FIND_ANY, [id]);
    return row ?? null;
  }

  list(organizationId: string, status: ApprovalStatus | null, limit: number): Promise<StoredApproval[]> {
    return statementIn<StoredApproval>(this.dataSource.manager, LIST, [organizationId, status, limit]);
  }

  /** The credential's approvals before this one, newest first. */
  earlierOfCredential(approval: StoredApproval, limit: number): Promise<StoredApproval[]> {
    return statementIn<StoredApproval>(this.dataSource.manager, EARLIER, [approval.credentialId, approval.id, approval.createdAt, limit]);
  }

  /** Counts one person's approval (the status becomes `approved` at the rule's count); null when it was not pending or they already approved. */
  async approve(em: EntityManager, id: string, userId: string, reason: string | null): Promise<StoredApproval | null> {
    const [row] = await statementIn<StoredApproval>(em, APPROVE, [id, userId, reason]);
    return row ?? null;
  }

  async deny(em: EntityManager, id: string, userId: string, reason: string | null): Promise<StoredApproval | null> {
    const [row] = await statementIn<StoredApproval>(em, DENY, [id, userId, reason]);
    return row ?? null;
  }

  /** Voids the organisation's live approvals whose rule (`<id>:<sha256>`) is not among `kept`. */
  voidRulesGone(em: EntityManager, organizationId: string, kept: string[]): Promise<StoredApproval[]> {
    return statementIn<StoredApproval>(em, VOID_RULES_GONE, [organizationId, kept]);
  }

  /** Marks a pending approval past its lifetime, or an approved one unused 600 s after its decision, expired; null when it is neither. */
  async expire(em: EntityManager, id: string): Promise<StoredApproval | null> {
    const [row] = await statementIn<StoredApproval>(em, EXPIRE, [id]);
    return row ?? null;
  }

  /** Voids a pending or approved (not yet consumed) approval; null when it was neither. */
  async void(em: EntityManager, id: string, reason: string): Promise<StoredApproval | null> {
    const [row] = await statementIn<StoredApproval>(em, VOID, [id, reason]);
    return row ?? null;
  }
}
