import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { MEMBERSHIP_ROLES, MembershipRole } from '@app/tenancy';

/** A member's new role: the body of `PATCH …/members/:userId` and the members page's role form. */
export class ChangeMemberRoleDto {
  @ApiProperty({ enum: MEMBERSHIP_ROLES })
  @IsIn(MEMBERSHIP_ROLES, { message: `role must be one of: ${MEMBERSHIP_ROLES.join(', ')}` })
  role: MembershipRole;
}
