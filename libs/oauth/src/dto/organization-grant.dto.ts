import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { KeysetPageQueryDto } from '@app/common';
import { AGENT_PERMISSION_NAMES, AgentPermission } from '@app/capabilities';

export class ListOrganizationGrantsQueryDto extends KeysetPageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only the clients this person connected.' })
  @IsOptional()
  @IsUUID('all', { message: 'userId must be a user id (UUID)' })
  userId?: string;
}

export class GrantClientDto {
  @ApiProperty({ description: 'The client_id: a UUID (registered client) or an https URL (metadata-document client).' })
  id: string;

  @ApiProperty({ example: 'Claude' })
  name: string;

  @ApiProperty({ enum: ['metadata_document', 'registered'] })
  kind: 'metadata_document' | 'registered';

  @ApiProperty({
    type: [String],
    example: ['claude.ai'],
    description: 'The host it answers to: its client_id URL\'s host, or (registered clients) its redirect URIs\' hosts or private-use schemes.',
  })
  hosts: string[];
}

export class GrantProjectDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;
}

export class GrantUserDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  email: string;
}

export class GrantIdentityProviderDto {
  @ApiProperty({ example: 'https://acme.okta.com', description: "The identity provider's issuer." })
  issuer: string;
}

export class OrganizationGrantDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: GrantClientDto })
  client: GrantClientDto;

  @ApiProperty({ type: GrantProjectDto })
  project: GrantProjectDto;

  @ApiProperty({ type: GrantUserDto, nullable: true, description: 'Who consented.' })
  user: GrantUserDto | null;

  @ApiProperty({ enum: AGENT_PERMISSION_NAMES, isArray: true })
  permissions: AgentPermission[];

  @ApiProperty({ format: 'date-time', description: 'When the person consented.' })
  createdAt: Date;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: "Its access tokens' latest use (recorded at most once a minute)." })
  lastUsedAt: Date | null;

  @ApiPropertyOptional({
    type: GrantIdentityProviderDto,
    description: "Present when the client traded an ID-JAG of the organisation's identity provider (Enterprise-Managed Authorization) instead of asking for consent.",
  })
  identityProvider?: GrantIdentityProviderDto;
}

export class OrganizationGrantPageDto {
  @ApiProperty({ type: [OrganizationGrantDto], description: 'Live grants, newest first.' })
  items: OrganizationGrantDto[];

  @ApiProperty({ nullable: true, type: String, description: 'Pass as `cursor` for the next page; null on the last page.' })
  nextCursor: string | null;
}

export class RevokedGrantDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['revoked'] })
  status: 'revoked';

  @ApiProperty({ format: 'date-time' })
  revokedAt: Date;

  @ApiProperty({ description: 'Access tokens ended by this call (0 when it was already revoked).' })
  revokedTokens: number;
}
