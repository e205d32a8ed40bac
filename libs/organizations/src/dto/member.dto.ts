import { ApiProperty } from '@nestjs/swagger';
import { MEMBERSHIP_ROLES, MembershipRole } from '@app/tenancy';

export class MemberDto {
  @ApiProperty({ format: 'uuid' })
  userId: string;

  @ApiProperty({ example: 'grace@example.com' })
  email: string;

  @ApiProperty({ example: 'Grace Hopper' })
  name: string;

  @ApiProperty({ enum: MEMBERSHIP_ROLES })
  role: MembershipRole;

  @ApiProperty({ format: 'date-time' })
  joinedAt: string;
}

export class MemberListDto {
  @ApiProperty({ type: [MemberDto] })
  items: MemberDto[];
}

export class RemovedMemberDto {
  @ApiProperty({ format: 'uuid' })
  userId: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  @ApiProperty({ description: "The person's agent tokens in this organisation that the removal revoked.", example: 1 })
  revokedTokens: number;
}
