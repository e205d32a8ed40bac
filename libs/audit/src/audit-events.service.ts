import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainError } from '@app/common';
import { isUuid } from '@app/database';
import type { AuditEventDto, AuditEventPageDto } from './dto/list-audit-events.dto';

export const AUDIT_PAGE_DEFAULT = 50;

interface AuditRow {
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
  /** created_at as whole microseconds since the epoch (exact; a JS Date keeps only milliseconds). */
  created_us: string;
}

/** A position in the newest-first order: (created_at, id) of the last event of a page. */
interface Cursor {
  us: string;
  id: string;
}

/** Reads an organisation's audit trail, newest first, with keyset pagination. */
@Injectable()
export class AuditEventsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(organizationId: string, options: { limit?: number; cursor?: string }): Promise<AuditEventPageDto> {
    const limit = options.limit ?? AUDIT_PAGE_DEFAULT;
    const cursor = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const params: unknown[] = [organizationId, limit + 1];
    let after = '';
    if (cursor) {
      params.push(cursor.us, cursor.id);
      after = `AND (created_at, id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid)`;
    }
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT id, organization_id, project_id, actor_type, actor_id, action, target_type, target_id, metadata, ip,
              user_agent, created_at,
              ((extract(epoch FROM created_at) * 1000000)::numeric(20, 0))::text AS created_us
         FROM audit_events
        WHERE organization_id = $1 ${after}
        ORDER BY created_at DESC, id DESC
        LIMIT $2`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toDto),
      nextCursor: rows.length > limit && last ? encodeCursor({ us: last.created_us, id: last.id }) : null,
    };
  }
}

function toDto(row: AuditRow): AuditEventDto {
  return {
    id: row.id,
    organizationId: row.organization_id,
    projectId: row.project_id,
    actorType: row.actor_type,
    actorId: row.actor_id,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    metadata: row.metadata,
    ip: row.ip,
    userAgent: row.user_agent,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.us}.${cursor.id}`).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  const invalid = new DomainError('invalid_cursor', 'cursor is not a cursor this list returned', 'invalid_input');
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw invalid;
  const [us, id, extra] = Buffer.from(text, 'base64url').toString('utf8').split('.');
  if (extra !== undefined || !us || !/^\d{1,19}$/.test(us) || !isUuid(id)) throw invalid;
  return { us, id };
}
