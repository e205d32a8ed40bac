import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { type BoundStatement, statement, statementIn } from '@app/database';
import type { ChainLink } from './chain/chain-hash';
import { AuditEvent } from './entities/audit-event.entity';
import { timeRangeSql } from './time-range';

/** An event with its exact position: `created_at` as whole microseconds since the epoch (a JS Date keeps only milliseconds). */
export type PositionedAuditEvent = AuditEvent & { createdUs: string };

/** A record to write: its id and OCSF event made by the recorder; the time from the column's default; unsealed. */
export type NewAuditEvent = Omit<AuditEvent, 'createdAt' | 'seq' | 'prevHash' | 'hash' | 'event' | 'sealAfter'> & {
  event: Record<string, unknown>;
  /** When it happened (ms since the epoch, the event's `time`): a batched record's `created_at`, not its write's. */
  time: number;
};

export interface AuditEventFilters {
  projectId?: string;
  credential?: string;
  action?: string;
  /** A tool call's tool (`metadata.tool`). */
  tool?: string;
  /** An OAuth client (the actor, or `metadata.clientId`). */
  client?: string;
  /** A tool-call decision (SPEC §10). */
  decision?: AuditDecision;
  /** Written at or after / before. */
  from?: Date;
  to?: Date;
}

/** The decisions a record can state, and the actions that state each. */
export const AUDIT_DECISIONS = {
  allowed: ['tool.called', 'capability.%'],
  denied: ['tool.denied'],
  approval_required: ['approval.requested', 'approval.pending'],
  approved_run: ['approval.consumed'],
  refused: ['mcp.refused'],
} as const;
export type AuditDecision = keyof typeof AUDIT_DECISIONS;

const INSERT_EVENT = statement(
  'audit_events.insert',
  `INSERT INTO audit_events
     (organization_id, project_id, actor_type, actor_id, action, target_type, target_id, metadata, ip, user_agent, id, chain, event)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13::jsonb)`,
);

/**
 * `insertMany`'s statement: one row per element of a JSON array, `created_at` from each record's
 * `time`, and its seal (`seq`, `prev_hash`, `hash`) when it is written sealed.
 */
const INSERT_MANY = `INSERT INTO audit_events
     (organization_id, project_id, actor_type, actor_id, action, target_type, target_id, metadata, ip, user_agent, id, chain, event, created_at,
      seq, prev_hash, hash)
   SELECT r.organization_id, r.project_id, r.actor_type, r.actor_id, r.action, r.target_type, r.target_id,
          coalesce(r.metadata, r.event->'unmapped'->'metadata'), r.ip, r.user_agent, r.id, r.chain, r.event,
          to_timestamp(r.at_ms / 1000), r.seq, r.prev_hash, r.hash
     FROM json_to_recordset($1::json) AS r(organization_id uuid, project_id uuid, actor_type text, actor_id text, action text, target_type text,
          target_id text, metadata jsonb, ip text, user_agent text, id uuid, chain text, event jsonb, at_ms double precision,
          seq bigint, prev_hash text, hash text)`;

/** The `audit_events` table. The only code that reads or writes it. */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * In the caller's transaction, so the event commits or rolls back with the change it records.
   * One written-out statement (id and time from the column defaults): every agent write runs it.
   */
  async insert(em: EntityManager, event: NewAuditEvent): Promise<void> {
    const step = this.insertStep(event);
    await statementIn(em, step.statement, step.parameters);
  }

  /**
   * Several records in one statement (the buffered records: reads, refusals): the batch as one
   * JSON parameter, each record's event serialised once (its `metadata` column is the event's
   * `unmapped.metadata`, the same object, taken from the event in the statement instead of being
   * serialised a second time). `seals[i]`, when given, is the `i`th record's place in its chain
   * (the sealer's transaction, `AuditSealer.writeSealed`); without it a record is written unsealed.
   */
  async insertMany(events: NewAuditEvent[], em: EntityManager = this.dataSource.manager, seals: readonly ChainLink[] = []): Promise<void> {
    const rows = events.map((e, i) => ({
      id: e.id,
      chain: e.chain,
      organization_id: e.organizationId,
      project_id: e.projectId,
      actor_type: e.actorType,
      actor_id: e.actorId,
      action: e.action,
      target_type: e.targetType,
      target_id: e.targetId,
      metadata: (e.event.unmapped as { metadata?: unknown } | undefined)?.metadata === e.metadata ? undefined : e.metadata,
      ip: e.ip,
      user_agent: e.userAgent,
      event: e.event,
      at_ms: e.time,
      seq: seals[i]?.seq,
      prev_hash: seals[i]?.prevHash,
      hash: seals[i]?.hash,
    }));
    await em.query(INSERT_MANY, [JSON.stringify(rows)]);
  }

  /**
   * An aggregate of refused requests: inserted, or its count (and its event's `count`) raised by
   * `add` while it is unsealed. Sealed only after `sealAfter` (its minute has closed).
   */
  async upsertAggregate(event: NewAuditEvent, add: number, sealAfter: Date): Promise<void> {
    const step = this.insertStep(event);
    await this.dataSource.query(
      `INSERT INTO audit_events
         (organization_id, project_id, actor_type, actor_id, action, target_type, target_id, metadata, ip, user_agent, id, chain, event, created_at, seal_after)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13::jsonb, to_timestamp($14::double precision / 1000), $15)
       ON CONFLICT (id) DO UPDATE
          SET metadata = jsonb_set(audit_events.metadata, '{count}', to_jsonb((audit_events.metadata->>'count')::bigint + $16)),
              event = jsonb_set(jsonb_set(audit_events.event, '{count}', to_jsonb((audit_events.event->>'count')::bigint + $16)),
                                '{unmapped,metadata,count}', to_jsonb((audit_events.event->>'count')::bigint + $16))
        WHERE audit_events.seq IS NULL`,
      [...step.parameters, event.time, sealAfter, add],
    );
  }

  /** The same insert as a step of an atomic write (`runAtomically`), for the caller to run with its change. */
  insertStep(event: NewAuditEvent): BoundStatement {
    return {
      statement: INSERT_EVENT,
      parameters: [
        event.organizationId,
        event.projectId,
        event.actorType,
        event.actorId,
        event.action,
        event.targetType,
        event.targetId,
        JSON.stringify(event.metadata),
        event.ip,
        event.userAgent,
        event.id,
        event.chain,
        JSON.stringify(event.event),
      ],
    };
  }

  /**
   * An organisation's events, newest first, after a (microseconds, id) position when given,
   * narrowed by the filters: a project; a credential (events it made, events of tokens derived
   * from it — `metadata.serviceKeyId`, `metadata.grantId`, `metadata.clientId` —, and events
   * that target it); an action, or a family of actions (`capability.*`: every action that
   * starts with `capability.`).
   */
  async page(
    organizationId: string,
    limit: number,
    after?: { us: string; id: string },
    filters: AuditEventFilters = {},
  ): Promise<PositionedAuditEvent[]> {
    const params: unknown[] = [organizationId, limit];
    let where = '';
    if (after) {
      params.push(after.us, after.id);
      where = `AND (created_at, id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid)`;
    }
    if (filters.projectId) {
      params.push(filters.projectId);
      where += ` AND project_id = $${params.length}`;
    }
    if (filters.action?.endsWith('.*')) {
      params.push(`${filters.action.slice(0, -1).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where += ` AND action LIKE $${params.length}`;
    } else if (filters.action) {
      params.push(filters.action);
      where += ` AND action = $${params.length}`;
    }
    if (filters.tool) {
      params.push(filters.tool);
      where += ` AND metadata->>'tool' = $${params.length}`;
    }
    if (filters.client) {
      params.push(filters.client);
      where += ` AND (metadata->>'clientId' = $${params.length} OR (actor_type = 'oauth_client' AND actor_id = $${params.length}))`;
    }
    if (filters.decision) {
      params.push([...AUDIT_DECISIONS[filters.decision]]);
      where += ` AND action LIKE ANY ($${params.length}::text[])`;
    }
    where += timeRangeSql(params, filters);
    const columns = `id, organization_id, project_id, actor_type, actor_id, action, target_type, target_id, metadata, ip,
              user_agent, created_at,
              ((extract(epoch FROM created_at) * 1000000)::numeric(20, 0))::text AS created_us`;
    let source = 'audit_events';
    if (filters.credential) {
      // Each place the id can be has its own index, newest first: the newest matches of each,
      // merged. (As one OR, the planner walks the organisation's whole log for a rare id.)
      params.push(filters.credential);
      const c = `$${params.length}`;
      const places = ['actor_id', 'target_id', "metadata->>'serviceKeyId'", "metadata->>'grantId'", "metadata->>'clientId'"];
      source = `(${places
        .map((place) => `(SELECT ${columns} FROM audit_events WHERE organization_id = $1 AND ${place} = ${c} ${where} ORDER BY created_at DESC, id DESC LIMIT $2)`)
        .join(' UNION ')}) AS matched`;
    }
    const rows: {
      id: string;
      organization_id: string | null;
      project_id: string | null;
      actor_type: string;
      actor_id: string | null;
      action: string;
      target_type: string | null;
      target_id: string | null;
      metadata: Record<string, unknown>;
      ip: string | null;
      user_agent: string | null;
      created_at: Date;
      created_us: string;
    }[] = await this.dataSource.query(
      filters.credential
        ? `SELECT * FROM ${source} ORDER BY created_at DESC, id DESC LIMIT $2`
        : `SELECT ${columns}
         FROM audit_events
        WHERE organization_id = $1 ${where}
        ORDER BY created_at DESC, id DESC
        LIMIT $2`,
      params,
    );
    return rows.map((r) =>
      Object.assign(new AuditEvent(), {
        id: r.id,
        organizationId: r.organization_id,
        projectId: r.project_id,
        actorType: r.actor_type,
        actorId: r.actor_id,
        action: r.action,
        targetType: r.target_type,
        targetId: r.target_id,
        metadata: r.metadata,
        ip: r.ip,
        userAgent: r.user_agent,
        createdAt: r.created_at,
        createdUs: r.created_us,
      }),
    );
  }
}
