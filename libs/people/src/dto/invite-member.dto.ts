import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, MaxLength } from 'class-validator';
import { IsDisplaySafe, Trim } from '@app/common';
import { MEMBERSHIP_ROLES, MembershipRole } from '@app/tenancy';

/**
 * Whom to invite, with which role: the body of `POST …/invitations` and the members page's
 * invitation form. Any email: whether an account uses it is never told.
 */
export class InviteMemberDto {
  @ApiProperty({ example: 'grace@example.com', description: 'Who the invitation is meant for; the person may already have an account or sign up from the link.' })
  @Trim()
  @IsString()
  @MaxLength(254)
  @IsDisplaySafe()
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @ApiProperty({ enum: MEMBERSHIP_ROLES })
  @IsIn(MEMBERSHIP_ROLES, { message: `role must be one of: ${MEMBERSHIP_ROLES.join(', ')}` })
  role: MembershipRole;
}
