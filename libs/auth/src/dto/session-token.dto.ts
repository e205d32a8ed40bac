import { ApiProperty } from '@nestjs/swagger';
import type { MembershipRole } from '@app/tenancy';

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
  role: MembershipRole;
}

export class MeUserDto extends UserSummaryDto {
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class MembershipDto {
  @ApiProperty({ type: OrganizationSummaryDto })
  organization: OrganizationSummaryDto;

  @ApiProperty({ enum: ['admin', 'member'] })
  role: MembershipRole;
}

export class MeDto {
  @ApiProperty({ type: MeUserDto })
  user: MeUserDto;

  @ApiProperty({ type: [MembershipDto] })
  memberships: MembershipDto[];
}

export class SessionSummaryDto {
  @ApiProperty({ format: 'uuid', description: "The session's id (its JWT's `jti`)." })
  id: string;

  @ApiProperty({ format: 'date-time', description: 'When it was signed in.' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', description: 'Until when it works.' })
  expiresAt: string;

  @ApiProperty({ type: String, nullable: true, description: "The browser's or client's User-Agent (at most 200 characters)." })
  userAgent: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The client address as the service saw it at sign-in.' })
  ip: string | null;

  @ApiProperty({ description: 'Whether this is the session making the request.' })
  current: boolean;
}

export class SessionListDto {
  @ApiProperty({ type: [SessionSummaryDto], description: 'Newest first, at most 50.' })
  items: SessionSummaryDto[];
}
