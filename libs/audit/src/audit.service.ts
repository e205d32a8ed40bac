import { Injectable, Optional } from '@nestjs/common';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { Metrics } from '@app/observability';
import { EntityManager } from 'typeorm';
import type { BoundStatement } from '@app/database';
import { randomUUID } from 'node:crypto';
import { AuditEventsRepository, type NewAuditEvent } from './audit-events.repository';
import { checkAuditRecord } from './audit-record-check';
import { SealingNudge } from './chain/sealing-nudge';
import { SERVICE_CHAIN } from './ocsf/ocsf-common';
import { ocsfEventOf } from './ocsf/ocsf-events';

/** The actions the audit trail records (SPEC §6), besides agents' capability calls. */
export const AUDIT_ACTIONS = [
  'service_key.created',
  'service_key.revoked',
  'project_token.derived',
  'project_token.revoked',
  'project_token.rotated',
  'api_key.rotated',
  'api_key.created',
  'api_key.revoked',
  'oauth_client.registered',
  'oauth_client.secret_rotated',
  'oauth_client.deleted',
  'consent.approved',
  'consent.denied',
  'grant.id_jag_exchanged',
  'grant.revoked',
  'refresh_token.reuse_detected',
  'member.added',
  'member.role_changed',
  'member.removed',
  'project.created',
  'project.renamed',
  'project.deleted',
  'organization.created',
  'invitation.created',
  'invitation.withdrawn',
  'invitation.accepted',
  'password_reset.issued',
  'password_reset.used',
  'password.changed',
  'account.email_released',
  'api_key.handed_over',
  'client_policy.updated',
  'identity_provider.updated',
  'identity_provider.removed',
  'identity_provider.domain_verified',
  'identity_provider.redirect_uri_confirmed',
  'sso.sign_in',
  'sso.linked',
  'sso.account_created',
  'scim_token.created',
  'scim_token.revoked',
  'scim_token.handed_over',
  'scim.user_created',
  'scim.user_updated',
  'scim.user_deactivated',
  'scim.user_reactivated',
  'scim.user_deleted',
  // Audit as evidence (SPEC §10): tool calls and their steps, refusals, sign-ins, token outcomes.
  'tool.called',
  'tool.denied',
  'approval.requested',
  'approval.pending',
  'approval.consumed',
  'mcp.refused',
  'policy.updated',
  'audit_sink.created',
  'audit_sink.deleted',
  'approval_webhook.updated',
  'approval_webhook.deleted',
  'session.reauthenticated',
  'session.reauthentication_failed',
  'sign_in.succeeded',
  'sign_in.failed',
  'token.issued',
  'token.refused',
  'audit.exported',
  'approval.approved',
  'approval.denied',
  'approval.expired',
  'approval.voided',
  'audit_records.removed',
  'audit_retention.updated',
] as const;

/** An agent's capability call that changes data, e.g. `capability.delete_task`. */
export type CapabilityAuditAction = `capability.${string}`;

export type AuditAction = (typeof AUDIT_ACTIONS)[number] | CapabilityAuditAction;

/** Audit actions that are revocations, and their name in the revocation metric. */
const REVOCATIONS = {
  'service_key.revoked': 'service_key',
  'project_token.revoked': 'project_token',
  'api_key.revoked': 'api_key',
  'grant.revoked': 'grant',
  'refresh_token.reuse_detected': 'refresh_token_reuse',
} as const;

/** Where a request came from, for the event. */
export interface RequestOrigin {
  ip?: string | null;
  userAgent?: string | null;
}

/**
 * Who did something, for the audit trail: the one actor type every service takes (`actorType`
 * `user`, `api_key`, `agent_token`, `oauth_client`, `cli`, `system`, `anonymous`; `actorId` the
 * user's, key's, token's or client's id) and where the request came from. A request's actor is
 * built once by `actorOf` / `@RequestActor()` of `credentials`.
 */
export interface AuditActor {
  actorType: string;
  actorId: string | null;
  /** A person's email (a session, or an agent token of a person's OAuth grant): OCSF `actor.user.email_addr`. */
  actorEmail?: string | null;
  /** A service key's name (a project token): OCSF `actor.user.name`. */
  actorName?: string | null;
  origin?: RequestOrigin;
}

/** Changes nobody asked for directly (the default of a cascade). */
export const SYSTEM_ACTOR: AuditActor = { actorType: 'system', actorId: null };

export interface AuditEventInput {
  organizationId: string | null;
  projectId?: string | null;
  actorType: string;
  actorId?: string | null;
  /** As `AuditActor`: in the OCSF event only, not in the record's JSON shape. */
  actorEmail?: string | null;
  actorName?: string | null;
  action: AuditAction;
  targetType?: string | null;
  targetId?: string | null;
  /** Never a secret: ids, names, counts, permissions. */
  metadata?: Record<string, unknown>;
  origin?: RequestOrigin;
  /** The request's trace id, when there is one (the event's `metadata.correlation_uid`). */
  traceId?: string | null;
}

/** The credential behind an agent's capability call (what its project context carries). */
export interface AgentCredential {
  tokenId: string;
  serviceKeyId: string | null;
  grantId: string | null;
  clientId: string | null;
  userId?: string | null;
  serviceKeyName?: string | null;
  userEmail?: string | null;
  origin?: RequestOrigin;
}

/** One capability call that changes data, and how it ended. */
export interface AgentWrite {
  organizationId: string;
  projectId: string;
  credential: AgentCredential;
  /** The capability (MCP tool) name. */
  tool: string;
  targetType: string;
  targetId: string | null;
  /** `succeeded`, or the refusal's code (`not_found`). */
  outcome: string;
}

/**
 * Writes audit events. Always called with the EntityManager of the transaction that makes the
 * change, so the event and the change commit or roll back together.
 */
@Injectable()
export class AuditService {
  constructor(
    private readonly events: AuditEventsRepository,
    @Optional() private readonly metrics?: Metrics,
    @Optional() private readonly sealing?: SealingNudge,
  ) {}

  async record(em: EntityManager, event: AuditEventInput): Promise<void> {
    if (event.action in REVOCATIONS) this.metrics?.recordRevocation(REVOCATIONS[event.action as keyof typeof REVOCATIONS]);
    await this.events.insert(em, rowOf(event));
    this.sealing?.nudge();
  }

  /**
   * An agent's write: actor the `dga_` token, action `capability.<tool>`, and the credential it
   * comes from (its service key, or its OAuth grant and client) in the metadata, where the
   * list's `credential` filter finds it. Reads are recorded by the tool-call recorder, batched.
   */
  async recordAgentWrite(em: EntityManager, write: AgentWrite): Promise<void> {
    await this.record(em, agentEvent(write));
  }

  /**
   * The same event as a step of the write's atomic statements (`runAtomically` of the database
   * library), for a write that sends its change and its event together.
   */
  agentWriteStep(write: AgentWrite): BoundStatement {
    return this.events.insertStep(rowOf(agentEvent(write)));
  }
}

function agentEvent(write: AgentWrite): AuditEventInput {
  const { credential } = write;
  const source = credentialSource(credential);
  return {
    organizationId: write.organizationId,
    projectId: write.projectId,
    ...agentActor(credential),
    action: `capability.${write.tool}`,
    targetType: write.targetType,
    targetId: write.targetId,
    metadata: { tool: write.tool, outcome: write.outcome, ...source },
  };
}

/** Where an agent's credential comes from, as the record's metadata names it: its service key, or its grant, client and person. */
export function credentialSource(credential: AgentCredential): Record<string, unknown> {
  if (credential.serviceKeyId) return { serviceKeyId: credential.serviceKeyId };
  return { grantId: credential.grantId, clientId: credential.clientId, ...(credential.userId ? { userId: credential.userId } : {}) };
}

/** The actor of an agent's call: its token, the service key's name or the person's email, and where it came from. */
export function agentActor(credential: AgentCredential): AuditActor & { actorId: string } {
  return {
    actorType: 'agent_token',
    actorId: credential.tokenId,
    actorEmail: credential.userEmail ?? null,
    actorName: credential.serviceKeyName ?? null,
    ...(credential.origin ? { origin: credential.origin } : {}),
  };
}

/** The trace id of the active span, when tracing is on and the request is part of a trace. */
function activeTraceId(): string | null {
  const span = trace.getActiveSpan();
  if (!span) return null;
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? spanContext.traceId : null;
}

/** The row of a record, its OCSF event built once, here, and checked in tests (`checkAuditRecord`). */
export function rowOf(event: AuditEventInput): NewAuditEvent {
  const id = randomUUID();
  const time = Date.now();
  const columns = {
    organizationId: event.organizationId,
    projectId: event.projectId ?? null,
    actorType: event.actorType,
    actorId: event.actorId ?? null,
    action: event.action,
    targetType: event.targetType ?? null,
    targetId: event.targetId ?? null,
    metadata: event.metadata ?? {},
    ip: event.origin?.ip ?? null,
    userAgent: event.origin?.userAgent?.slice(0, 512) ?? null,
  };
  const ocsf = ocsfEventOf({
    id,
    time,
    ...columns,
    actorEmail: event.actorEmail ?? null,
    actorName: event.actorName ?? null,
    traceId: event.traceId ?? activeTraceId(),
  });
  checkAuditRecord(ocsf);
  return { id, time, chain: event.organizationId ?? SERVICE_CHAIN, event: ocsf, ...columns };
}
