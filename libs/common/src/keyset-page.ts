import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { DomainError } from './domain-error';
import { isUuid } from './uuid';

/**
 * One page of a keyset-paginated list. The query asks for `limit + 1` rows: the extra row only
 * says that more follow, and the next page starts after the position of this page's last row
 * (`cursorOf`, an opaque cursor the list decodes again).
 */
export function keysetPage<R>(rows: readonly R[], limit: number, cursorOf: (last: R) => string): { items: R[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page, nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 100;

/**
 * `limit` and `cursor` of a keyset-paginated list (newest first); `noun` names the items in the
 * documentation of `limit` ("Projects per page."). A list's query DTO extends the class this returns.
 */
export function KeysetPageQuery(noun = 'Items') {
  class PageQueryDto {
    @ApiPropertyOptional({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT, description: `${noun} per page.` })
    @IsOptional()
    @Type(() => Number)
    @IsInt()
    @Min(1)
    @Max(PAGE_SIZE_MAX)
    limit?: number;

    @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page (opaque).' })
    @IsOptional()
    @IsString()
    @MaxLength(200)
    cursor?: string;
  }
  return PageQueryDto;
}

/** `limit` and `cursor` of a keyset-paginated list of items (newest first). */
export class KeysetPageQueryDto extends KeysetPageQuery() {}

/**
 * A position in a newest-first list: the last item's creation time in whole microseconds since
 * the epoch (a JS Date keeps only milliseconds) and its id, which breaks ties.
 */
export interface KeysetPosition {
  us: string;
  id: string;
}

/** The opaque cursor of a position (base64url). */
export function encodeKeysetCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.us}.${position.id}`).toString('base64url');
}

/** The position a cursor names; a cursor this service did not produce → 400 `invalid_cursor`. */
export function decodeKeysetCursor(text: string): KeysetPosition {
  const invalid = new DomainError('invalid_cursor', 'cursor is not a cursor this list returned', 'invalid_input');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) throw invalid;
  const [us, id, extra] = Buffer.from(text, 'base64url').toString('utf8').split('.');
  if (extra !== undefined || !us || !/^\d{1,19}$/.test(us) || !isUuid(id)) throw invalid;
  return { us, id };
}

/**
 * SQL of a keyset position on `created_at, id` (newest first): the microseconds column to select,
 * and the condition "after this position" given the placeholders of its two parameters (`$3`,
 * `:us`…), the position's `us` and `id`.
 */
export const KEYSET_SQL = {
  createdUs: (alias: string) => `((extract(epoch FROM ${alias}.created_at) * 1000000)::numeric(20, 0))::text`,
  after: (alias: string, us: string, id: string) =>
    `(${alias}.created_at, ${alias}.id) < (timestamptz 'epoch' + ${us}::bigint * interval '1 microsecond', ${id}::uuid)`,
};
