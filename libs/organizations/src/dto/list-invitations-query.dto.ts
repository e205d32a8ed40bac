import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { KeysetPageQueryDto } from '@app/common';
import { INVITATION_STATUSES, InvitationStatus } from '@app/tenancy';

/** A page of an organisation's invitations, optionally of one status. */
export class ListInvitationsQueryDto extends KeysetPageQueryDto {
  @ApiPropertyOptional({ enum: INVITATION_STATUSES, description: 'Only the invitations with this status.' })
  @IsOptional()
  @IsIn(INVITATION_STATUSES, { message: `status must be one of: ${INVITATION_STATUSES.join(', ')}` })
  status?: InvitationStatus;
}
