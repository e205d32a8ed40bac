import { ApiProperty } from '@nestjs/swagger';
import { DerivedTokenRefDto } from '@app/credential-store';
import type { Member, MemberList, Offboarding, RemovedMember } from '@app/people';
import { MEMBERSHIP_ROLES, MembershipRole } from '@app/tenancy';

export class MemberDto implements Member {
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

export class MemberListDto implements MemberList {
  @ApiProperty({ type: [MemberDto], description: 'In the order they joined, then by user id.' })
  items: MemberDto[];

  @ApiProperty({ nullable: true, type: String, description: 'Pass as `cursor` for the next page; null on the last page.' })
  nextCursor: string | null;
}

export class ActionLinkDto {
  @ApiProperty({ enum: ['GET', 'POST'] })
  method: 'GET' | 'POST';

  @ApiProperty({ example: '/api/organizations/…/agent-service-keys/…/tokens/…/rotate' })
  path: string;
}

export class EndedApiKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;
}

export class OffboardedApiKeysDto {
  @ApiProperty({ enum: ['revoked', 'handed_over'], description: 'revoked, or handed over to you with handOver=true' })
  outcome: 'revoked' | 'handed_over';

  @ApiProperty({ example: 1 })
  count: number;

  @ApiProperty({ type: [EndedApiKeyDto] })
  items: EndedApiKeyDto[];
}

export class HeldServiceKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: ActionLinkDto, description: 'Its derived tokens, to rotate each.' })
  tokens: ActionLinkDto;

  @ApiProperty({ type: ActionLinkDto })
  revoke: ActionLinkDto;
}

export class HeldDerivedTokenDto extends DerivedTokenRefDto {
  @ApiProperty({ type: ActionLinkDto })
  rotate: ActionLinkDto;
}

/**
 * What a person leaving or losing the admin role could hold: their `rk_` keys (ended, or
 * handed over), and the service keys they created with the tokens derived from them (kept
 * working: machines use them; rotate them).
 */
export class OffboardedScimTokenDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
}

export class OffboardingDto implements Offboarding {
  @ApiProperty({ type: OffboardedApiKeysDto })
  apiKeys: OffboardedApiKeysDto;

  @ApiProperty({ type: [OffboardedScimTokenDto], description: 'The SCIM tokens the person made, ended with their admin role (SPEC §10)' })
  scimTokensEnded: OffboardedScimTokenDto[];

  @ApiProperty({ type: [OffboardedScimTokenDto], description: 'The SCIM tokens the person made, handed over to the acting admin (handOver)' })
  scimTokensHandedOver: OffboardedScimTokenDto[];

  @ApiProperty({ type: [HeldServiceKeyDto] })
  serviceKeys: HeldServiceKeyDto[];

  @ApiProperty({ type: [HeldDerivedTokenDto] })
  derivedTokens: HeldDerivedTokenDto[];
}

export class ChangedMemberDto extends MemberDto {
  @ApiProperty({ type: OffboardingDto, required: false, description: 'Present when an admin was demoted.' })
  offboarding?: OffboardingDto;
}

export class RemovedMemberDto implements RemovedMember {
  @ApiProperty({ format: 'uuid' })
  userId: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  @ApiProperty({ description: "The person's agent tokens in this organisation that the removal revoked.", example: 1 })
  revokedTokens: number;

  @ApiProperty({ type: OffboardingDto })
  offboarding: OffboardingDto;
}
