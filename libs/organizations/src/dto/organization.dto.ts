import { ApiProperty } from '@nestjs/swagger';
import { MEMBERSHIP_ROLES, MembershipRole } from '@app/tenancy';

export class OrganizationDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Analytical Engines Ltd' })
  name: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ enum: MEMBERSHIP_ROLES, description: "The caller's role in the organisation." })
  role: MembershipRole;
}

export class OrganizationListDto {
  @ApiProperty({ type: [OrganizationDto] })
  items: OrganizationDto[];
}
