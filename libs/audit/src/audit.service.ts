import { Injectable, Optional } from '@nestjs/common';
import { Metrics } from '@app/observability';
import { EntityManager } from 'typeorm';
import { AuditEventsRepository } from './audit-events.repository';

/** The actions the audit trail records (SPEC §6). */
export type AuditAction =
  | 'service_key.created'
  | 'service_key.revoked'
  | 'project_token.derived'
  | 'project_token.revoked'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'oauth_client.registered'
  | 'consent.approved'
  | 'consent.denied'
  | 'grant.revoked'
  | 'refresh_token.reuse_detected'
  | 'member.added'
  | 'member.role_changed'
  | 'member.removed'
  | 'project.created'
  | 'project.deleted'
  | 'organization.created';

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

export interface AuditEventInput {
  organizationId: string | null;
  projectId?: string | null;
  actorType: string;
  actorId?: string | null;
  action: AuditAction;
  targetType?: string | null;
  targetId?: string | null;
  /** Never a secret: ids, names, counts, permissions. */
  metadata?: Record<string, unknown>;
  origin?: RequestOrigin;
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
  ) {}

  async record(em: EntityManager, event: AuditEventInput): Promise<void> {
    if (event.action in REVOCATIONS) this.metrics?.recordRevocation(REVOCATIONS[event.action as keyof typeof REVOCATIONS]);
    await this.events.insert(em, {
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
    });
  }
}
