import { Injectable } from '@nestjs/common';
import { DomainError, keysetPage } from '@app/common';
import { isUuid } from '@app/database';
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
    const { projectId, credential, action, tool, client, decision, from, to } = options;
    const rows = await this.events.page(organizationId, limit + 1, cursor, { projectId, credential, action, tool, client, decision, from, to });
    const page = keysetPage(rows, limit, (last) => encodeCursor({ us: last.createdUs, id: last.id }));
    return { items: page.items.map(toDto), nextCursor: page.nextCursor };
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
  return Buffer.from(`${cursor.us}.${cursor.id}`).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  const invalid = new DomainError('invalid_cursor', 'cursor is not a cursor this list returned', 'invalid_input');
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw invalid;
  const [us, id, extra] = Buffer.from(text, 'base64url').toString('utf8').split('.');
  if (extra !== undefined || !us || !/^\d{1,19}$/.test(us) || !isUuid(id)) throw invalid;
  return { us, id };
}
