import { ApiProperty } from '@nestjs/swagger';

export class SessionTokenDto {
  @ApiProperty({ description: 'A session JWT (HS256); send it as Authorization: Bearer <accessToken>.' })
  accessToken: string;

  @ApiProperty({ enum: ['Bearer'] })
  tokenType: 'Bearer';

  @ApiProperty({ description: 'Seconds until the session expires (SESSION_TTL_SECONDS).', example: 43200 })
  expiresIn: number;
}

export class UserSummaryDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'ada@example.com' })
  email: string;

  @ApiProperty({ example: 'Ada Lovelace' })
  name: string;
}

export class OrganizationSummaryDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Analytical Engines Ltd' })
  name: string;
}

export class SignupResponseDto extends SessionTokenDto {
  @ApiProperty({ type: UserSummaryDto })
  user: UserSummaryDto;

  @ApiProperty({ type: OrganizationSummaryDto, description: 'The new organisation, or the one the invitation joined.' })
  organization: OrganizationSummaryDto;

  @ApiProperty({ enum: ['admin', 'member'], description: 'admin of a new organisation, or the invited role.' })
  role: 'admin' | 'member';
}

export class MeUserDto extends UserSummaryDto {
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class MembershipDto {
  @ApiProperty({ type: OrganizationSummaryDto })
  organization: OrganizationSummaryDto;

  @ApiProperty({ enum: ['admin', 'member'] })
  role: 'admin' | 'member';
}

export class MeDto {
  @ApiProperty({ type: MeUserDto })
  user: MeUserDto;

  @ApiProperty({ type: [MembershipDto] })
  memberships: MembershipDto[];
}
