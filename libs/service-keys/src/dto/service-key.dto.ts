import { ApiProperty } from '@nestjs/swagger';
import { AGENT_PERMISSION_NAMES, AgentPermission } from '@app/capabilities';
import { DerivedTokenRefDto } from '@app/credential-store';

const permissions = { enum: AGENT_PERMISSION_NAMES, isArray: true } as const;
const status = { enum: ['active', 'revoked'] } as const;
const tokenStatus = {
  enum: ['active', 'rotating_out', 'revoked', 'expired'],
  description: 'rotating_out: replaced by a rotation, still working until rotatingOutUntil; then revoked. expired: past the expiresAt chosen when it was derived.',
} as const;

export class CreatedServiceKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'nightly-sync' })
  name: string;

  @ApiProperty(permissions)
  permissions: AgentPermission[];

  @ApiProperty({ enum: ['active'] })
  status: 'active';

  @ApiProperty({ format: 'date-time' })
  createdAt: Date;
}

/** A derived token's metadata: never its secret. */
export class ProjectTokenDto extends DerivedTokenRefDto {
  @ApiProperty(permissions)
  permissions: AgentPermission[];

  @ApiProperty({
    example: 'dga_…a1B2',
    description: 'The prefix and the last four characters of the secret, to tell tokens apart (never the secret); `dga_…` for tokens made before the last four were kept.',
  })
  secretHint: string;

  @ApiProperty(tokenStatus)
  status: 'active' | 'rotating_out' | 'revoked' | 'expired';

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When it stops working, as chosen when it was derived; null: never.' })
  expiresAt: Date | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: Date;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When a rotating-out token stops working; null for any other token.',
  })
  rotatingOutUntil: Date | null;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When it was revoked, or when its rotation overlap ended.',
  })
  revokedAt: Date | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Accurate to about a minute.' })
  lastUsedAt: Date | null;
}

/** Who created a service key: a person (their name) or an `rk_` API key (its name). */
export class ServiceKeyCreatorDto {
  @ApiProperty({ enum: ['user', 'api_key'] })
  type: 'user' | 'api_key';

  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Ada Lovelace', description: 'The person’s name, or the API key’s name.' })
  name: string;
}

export class ServiceKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty(permissions)
  permissions: AgentPermission[];

  @ApiProperty(status)
  status: 'active' | 'revoked';

  @ApiProperty({ format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  revokedAt: Date | null;

  @ApiProperty({
    type: ServiceKeyCreatorDto,
    nullable: true,
    description: 'The person or API key that created it; null when it is not recorded (the creator no longer exists).',
  })
  createdBy: ServiceKeyCreatorDto | null;

  @ApiProperty({ type: [ProjectTokenDto], description: 'Every token derived from the key, revoked ones included, oldest first.' })
  tokens: ProjectTokenDto[];
}

const nextCursor = { nullable: true, type: String, description: 'Pass as `cursor` for the next page; null on the last page.' } as const;

export class ServiceKeyListDto {
  @ApiProperty({ type: [ServiceKeyDto], description: 'Newest first.' })
  items: ServiceKeyDto[];

  @ApiProperty(nextCursor)
  nextCursor: string | null;
}

export class ProjectTokenListDto {
  @ApiProperty({ type: [ProjectTokenDto], description: 'Oldest first, revoked ones included.' })
  items: ProjectTokenDto[];

  @ApiProperty(nextCursor)
  nextCursor: string | null;
}

export class RevokedServiceKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['revoked'] })
  status: 'revoked';

  @ApiProperty({ format: 'date-time', description: 'When the key was revoked (the same on every call).' })
  revokedAt: Date;

  @ApiProperty({ description: 'Derived tokens this call revoked; 0 when the key was already revoked.', example: 2 })
  revokedTokens: number;
}

/** The only answer that carries a derived token's secret. */
export class DerivedProjectTokenDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'The dga_ secret: shown here once, never again.', example: 'dga_…' })
  token: string;

  @ApiProperty({ format: 'uuid' })
  projectId: string;

  @ApiProperty({ format: 'uuid' })
  serviceKeyId: string;

  @ApiProperty(permissions)
  permissions: AgentPermission[];

  @ApiProperty({ format: 'date-time' })
  createdAt: Date;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When it stops working, as chosen when it was derived; null: never.' })
  expiresAt: Date | null;
}

export class RevokedProjectTokenDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['revoked'] })
  status: 'revoked';

  @ApiProperty({ format: 'date-time' })
  revokedAt: Date;
}

/** A rotation's answer: the new token (its secret shown this once) and the one rotating out. */
export class RotatedProjectTokenDto extends DerivedProjectTokenDto {
  @ApiProperty({ format: 'uuid', description: 'The token rotating out.' })
  replacesTokenId: string;

  @ApiProperty({ format: 'date-time', description: 'Until when the old secret keeps working.' })
  rotatingOutUntil: Date;
}
