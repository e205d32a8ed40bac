import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { INVITATION_STATUSES, InvitationStatus } from '@app/tenancy';

/** How many rows a page of members or invitations holds when the caller does not say. */
export const PEOPLE_PAGE_DEFAULT = 50;

/** A page of a keyset list: `limit` rows after `cursor` (the previous page's `nextCursor`). */
export class ListPageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: PEOPLE_PAGE_DEFAULT, description: 'Rows per page.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page (opaque).' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export class ListInvitationsQueryDto extends ListPageQueryDto {
  @ApiPropertyOptional({ enum: INVITATION_STATUSES, description: 'Only the invitations with this status.' })
  @IsOptional()
  @IsIn(INVITATION_STATUSES, { message: `status must be one of: ${INVITATION_STATUSES.join(', ')}` })
  status?: InvitationStatus;
}
