import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, MaxLength } from 'class-validator';
import { Trim } from '@app/common';
import { MEMBERSHIP_ROLES, MembershipRole } from '@app/tenancy';

export class AddMemberDto {
  @ApiProperty({ example: 'grace@example.com', description: 'The email of an existing account.' })
  @Trim()
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @ApiProperty({ enum: MEMBERSHIP_ROLES })
  @IsIn(MEMBERSHIP_ROLES, { message: `role must be one of: ${MEMBERSHIP_ROLES.join(', ')}` })
  role: MembershipRole;
}
