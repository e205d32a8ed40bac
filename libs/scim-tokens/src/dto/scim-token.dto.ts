import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsDisplaySafe, IsFutureInstant } from '@app/common';

export class CreateScimTokenDto {
  @ApiProperty({ description: 'What the token is for (e.g. "Okta")', minLength: 1, maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @IsDisplaySafe()
  name: string;

  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String, description: 'When the token stops working; omitted → never.' })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  @IsFutureInstant()
  expiresAt?: string | null;
}

export class ScimTokenDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'The prefix and last four characters, to tell tokens apart (scim_…a1B2)' }) hint: string;
  @ApiProperty() createdAt: string;
  @ApiPropertyOptional({ type: String, nullable: true }) createdBy: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) lastUsedAt: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'When it stops working; null: never' }) expiresAt: string | null;
}

export class CreatedScimTokenDto extends ScimTokenDto {
  @ApiProperty({ description: 'The token, shown this once: the SCIM client sends it as Authorization: Bearer' }) token: string;
  @ApiProperty({ description: 'The SCIM base URL to give the identity provider' }) scimBaseUrl: string;
}

export class ScimTokenListDto {
  @ApiProperty({ type: [ScimTokenDto] }) items: ScimTokenDto[];
}

export class RevokedScimTokenDto {
  @ApiProperty() id: string;
  @ApiProperty() revokedAt: string;
}
