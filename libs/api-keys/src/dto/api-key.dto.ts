import { ApiProperty } from '@nestjs/swagger';
import { API_KEY_PERMISSION_NAMES, ApiKeyPermission } from '@app/credential-store';

export type ApiKeyStatus = 'active' | 'rotating_out' | 'revoked' | 'expired';

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'CI deploy bot' })
  name: string;

  @ApiProperty({ enum: API_KEY_PERMISSION_NAMES, isArray: true })
  permissions: ApiKeyPermission[];

  @ApiProperty({
    example: 'rk_…a1B2',
    description: 'The prefix and the last four characters of the secret, to tell keys apart (never the secret); `rk_…` for keys made before the last four were kept.',
  })
  secretHint: string;

  @ApiProperty({
    enum: ['active', 'rotating_out', 'revoked', 'expired'],
    description: 'rotating_out: replaced by a rotation, still working until rotatingOutUntil; expired after.',
  })
  status: ApiKeyStatus;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The user who created it.' })
  createdBy: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  expiresAt: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  revokedAt: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Recorded at most once a minute.' })
  lastUsedAt: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The key that replaced this one by a rotation.' })
  replacedBy: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'While rotating out: when it stops working.' })
  rotatingOutUntil: string | null;
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto], description: 'Newest first; never the secret.' })
  items: ApiKeyDto[];

  @ApiProperty({ nullable: true, type: String, description: 'Pass as `cursor` for the next page; null on the last page.' })
  nextCursor: string | null;
}

export class CreatedApiKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'rk_…', description: 'The secret, shown this once; only its SHA-256 digest is stored.' })
  key: string;

  @ApiProperty({ example: 'CI deploy bot' })
  name: string;

  @ApiProperty({ enum: API_KEY_PERMISSION_NAMES, isArray: true })
  permissions: ApiKeyPermission[];

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  expiresAt: string | null;
}

export class RevokedApiKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['revoked'] })
  status: 'revoked';

  @ApiProperty({ format: 'date-time' })
  revokedAt: string;
}

export class PermissionDto {
  @ApiProperty({ example: 'projects:read' })
  name: string;

  @ApiProperty({ example: "List and read the organisation's projects." })
  description: string;
}

export class PermissionCataloguesDto {
  @ApiProperty({ type: [PermissionDto], description: 'What an agent token (dga_) may do at /api/mcp: OAuth scopes and service-key permissions.' })
  agent: PermissionDto[];

  @ApiProperty({ type: [PermissionDto], description: 'What a scoped API key (rk_) may do on the REST surface.' })
  apiKey: PermissionDto[];
}

/** A rotation's answer: the new key (its secret shown this once) and the one rotating out. */
export class RotatedApiKeyDto extends CreatedApiKeyDto {
  @ApiProperty({ format: 'uuid', description: 'The key rotating out.' })
  replacesKeyId: string;

  @ApiProperty({ format: 'date-time', description: 'Until when the old secret keeps working.' })
  rotatingOutUntil: string;
}
