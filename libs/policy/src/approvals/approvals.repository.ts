import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { statement, statementIn } from '@app/database';
import type { ApprovalStatus } from '../entities/approval.entity';
import type { ApprovalSettings } from '../policy-rules';

/** How long an approved approval may be consumed after its decision (SPEC §10). */
export const CONSUME_WITHIN_SECONDS = 600;

/** What binds an approval to one exact call. */
export interface ApprovalBinding {
  organizationId: string;
  projectId: string;
  tool: string;
  argumentsSha256: string;
  clientId: string | null;
  credentialKind: string;
  credentialId: string;
  userId: string | null;
  ruleId: string;
  ruleSha256: string;
}

export interface NewApproval extends ApprovalBinding {
  bindingSha256: string;
  tokenId: string;
  arguments: Record<string, unknown>;
  settings: Required<ApprovalSettings>;
  ruleDescription: string | null;
}

export interface ApprovalRow {
  id: string;
  status: ApprovalStatus;
  expires_at: Date;
}

/** A credential's approval requests lately: the caps and the cool-down are counted from these. */
export interface CredentialLoad {
  pending: number;
  requestedLastHour: number;
  deniedLastHour: number;
}

const LOCK_CREDENTIAL = statement('approvals.lock_credential', 'SELECT pg_advisory_xact_lock(hashtextextended($1, 38)) AS locked');
const EXPIRE_BINDING = statement(
  'approvals.expire_binding',
  `UPDATE approvals SET status = 'expired' WHERE binding_sha256 = $1 AND status = 'pending' AND expires_at <= now() RETURNING id, status, expires_at`,
);
const PENDING_BY_BINDING = statement(
  'approvals.pending_by_binding',
  `SELECT id, status, expires_at FROM approvals WHERE binding_sha256 = $1 AND status = 'pending'`,
);
const LOAD = statement(
  'approvals.credential_load',
  `SELECT count(*) FILTER (WHERE status = 'pending' AND expires_at > now())::int AS pending,
          count(*) FILTER (WHERE created_at > now() - interval '1 hour')::int AS requested,
          count(*) FILTER (WHERE status = 'denied' AND decided_at > now() - interval '1 hour')::int AS denied
   FROM approvals WHERE credential_id = $1 AND created_at > now() - interval '25 hours'`,
);
const INSERT = statement(
  'approvals.insert',
  `INSERT INTO approvals (organization_id, project_id, tool, arguments, arguments_sha256, client_id, credential_kind, credential_id,
                         token_id, user_id, rule_id, rule_sha256, settings, binding_sha256, expires_at, rule_description)
   VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, now() + make_interval(secs => $15), $16)
   ON CONFLICT (binding_sha256) WHERE status = 'pending' DO NOTHING
   RETURNING id, status, expires_at`,
);
// Atomic across instances: of two consumers of one row, the second finds its status changed and gets no row.
const CONSUME = statement(
  'approvals.consume',
  `UPDATE approvals SET status = 'consumed', consumed_at = now()
   WHERE id = (SELECT id FROM approvals WHERE binding_sha256 = $1 AND status = 'approved'
                 AND decided_at > now() - make_interval(secs => ${CONSUME_WITHIN_SECONDS}) ORDER BY decided_at LIMIT 1)
     AND status = 'approved' AND decided_at > now() - make_interval(secs => ${CONSUME_WITHIN_SECONDS})
   RETURNING id, status, expires_at`,
);

/** The only queries on `approvals`. */
@Injectable()
export class ApprovalsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Serialises the approval requests of one credential until `em`'s transaction ends (its caps are counted, then written). */
  async lockCredential(em: EntityManager, credentialId: string): Promise<void> {
    await statementIn(em, LOCK_CREDENTIAL, [credentialId]);
  }

  /** Marks the binding's pending approval expired when its time has passed; the expired row, if any. */
  async expireBinding(em: EntityManager, bindingSha256: string): Promise<ApprovalRow | null> {
    const [row] = await statementIn<ApprovalRow>(em, EXPIRE_BINDING, [bindingSha256]);
    return row ?? null;
  }

  async pendingFor(em: EntityManager, bindingSha256: string): Promise<ApprovalRow | null> {
    const [row] = await statementIn<ApprovalRow>(em, PENDING_BY_BINDING, [bindingSha256]);
    return row ?? null;
  }

  async loadOf(em: EntityManager, credentialId: string): Promise<CredentialLoad> {
    const [row] = await statementIn<{ pending: number; requested: number; denied: number }>(em, LOAD, [credentialId]);
    return { pending: row.pending, requestedLastHour: row.requested, deniedLastHour: row.denied };
  }

  /** The new pending approval, or null when one with this binding is already pending. */
  async insert(em: EntityManager, a: NewApproval): Promise<ApprovalRow | null> {
    const [row] = await statementIn<ApprovalRow>(em, INSERT, [
      a.organizationId,
      a.projectId,
      a.tool,
      JSON.stringify(a.arguments),
      a.argumentsSha256,
      a.clientId,
      a.credentialKind,
      a.credentialId,
      a.tokenId,
      a.userId,
      a.ruleId,
      a.ruleSha256,
      JSON.stringify(a.settings),
      a.bindingSha256,
      a.settings.ttlSeconds,
      a.ruleDescription,
    ]);
    return row ?? null;
  }

  /** Consumes an approved approval of this binding decided within the last 600 s: its id, or null when there is none (or another call took it). */
  async consume(bindingSha256: string, em: EntityManager = this.dataSource.manager): Promise<string | null> {
    const [row] = await statementIn<ApprovalRow>(em, CONSUME, [bindingSha256]);
    return row?.id ?? null;
  }
}
