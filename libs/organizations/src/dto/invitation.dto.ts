import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import type { AcceptedInvitation, CreatedInvitation, Invitation, InvitationList } from '@app/people';
import { MEMBERSHIP_ROLES, MembershipRole } from '@app/tenancy';

export class InvitationDto implements Invitation {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  @ApiProperty({ example: 'grace@example.com', description: 'Who the invitation is meant for (not checked: the link decides).' })
  email: string;

  @ApiProperty({ enum: MEMBERSHIP_ROLES })
  role: MembershipRole;

  @ApiProperty({ enum: ['pending', 'accepted', 'withdrawn', 'expired'] })
  status: 'pending' | 'accepted' | 'withdrawn' | 'expired';

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  invitedBy: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  acceptedAt: string | null;
}

export class CreatedInvitationDto extends InvitationDto implements CreatedInvitation {
  @ApiProperty({
    description: 'The invitation link to pass on (there is no mail). It carries the secret, shown only in this answer.',
    example: 'https://gateway.example.com/signup?invitation=dgi_…',
  })
  link: string;

  @ApiProperty({ description: 'The secret alone (`dgi_…`), for `POST /api/invitations/accept`; shown only in this answer.' })
  token: string;
}

export class InvitationListDto implements InvitationList {
  @ApiProperty({ type: [InvitationDto], description: 'Newest first.' })
  items: InvitationDto[];

  @ApiProperty({ nullable: true, type: String, description: 'Pass as `cursor` for the next page; null on the last page.' })
  nextCursor: string | null;
}

export class AcceptInvitationDto {
  @ApiProperty({ description: 'The secret of the invitation link (`dgi_…`).' })
  @IsString()
  @MaxLength(100)
  token: string;
}

export class AcceptedInvitationDto implements AcceptedInvitation {
  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  @ApiProperty({ example: 'Analytical Engines Ltd' })
  organizationName: string;

  @ApiProperty({ enum: MEMBERSHIP_ROLES })
  role: MembershipRole;

  @ApiPropertyOptional({
    description: 'A new session JWT that opens the organisation; the session that accepted has ended (sessions older than a membership never open it)',
  })
  accessToken?: string;

  @ApiPropertyOptional({ enum: ['Bearer'] })
  tokenType?: 'Bearer';

  @ApiPropertyOptional({ description: 'Seconds until the new session expires' })
  expiresIn?: number;
}

export class ResetLinkDto {
  @ApiProperty({ description: 'The page where the person sets a new password; carries the secret, shown only in this answer.' })
  link: string;

  @ApiProperty({ description: 'The secret alone (`dgp_…`), for `POST /api/auth/password-reset`.' })
  token: string;

  @ApiProperty({ format: 'date-time', description: 'One hour after issue.' })
  expiresAt: string;
}
