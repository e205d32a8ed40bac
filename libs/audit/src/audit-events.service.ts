import { Injectable } from '@nestjs/common';
import { decodeKeysetCursor, encodeKeysetCursor } from '@app/common';
import { AuditEventFilters, AuditEventsRepository, PositionedAuditEvent } from './audit-events.repository';
import type { AuditEventDto, AuditEventPageDto } from './dto/list-audit-events.dto';

export const AUDIT_PAGE_DEFAULT = 50;

/** A position in the newest-first order: (created_at, id) of the last event of a page. */
interface Cursor {
  us: string;
  id: string;
}

/** Reads an organisation's audit trail, newest first, with keyset pagination. */
@Injectable()
export class AuditEventsService {
  constructor(private readonly events: AuditEventsRepository) {}

  async list(organizationId: string, options: { limit?: number; cursor?: string } & AuditEventFilters): Promise<AuditEventPageDto> {
    const limit = options.limit ?? AUDIT_PAGE_DEFAULT;
    const cursor = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const { projectId, credential, action } = options;
    const rows = await this.events.page(organizationId, limit + 1, cursor, { projectId, credential, action });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toDto),
      nextCursor: rows.length > limit && last ? encodeCursor({ us: last.createdUs, id: last.id }) : null,
    };
  }
}

function toDto(event: PositionedAuditEvent): AuditEventDto {
  return {
    id: event.id,
    organizationId: event.organizationId,
    projectId: event.projectId,
    actorType: event.actorType,
    actorId: event.actorId,
    action: event.action,
    targetType: event.targetType,
    targetId: event.targetId,
    metadata: event.metadata,
    ip: event.ip,
    userAgent: event.userAgent,
    createdAt: new Date(event.createdAt).toISOString(),
  };
}

function encodeCursor(cursor: Cursor): string {
  return encodeKeysetCursor({ position: cursor.us, id: cursor.id });
}

function decodeCursor(text: string): Cursor {
  const { position, id } = decodeKeysetCursor(text);
  return { us: position, id };
}
