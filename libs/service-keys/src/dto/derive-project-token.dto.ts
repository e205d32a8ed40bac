import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsUUID } from 'class-validator';
import { IsFutureInstant } from '@app/common';

export class DeriveProjectTokenDto {
  @ApiProperty({ format: 'uuid', description: 'A project of the service key’s organisation.' })
  @IsUUID('all')
  projectId: string;

  @ApiPropertyOptional({
    format: 'date-time',
    nullable: true,
    description: 'When the token stops working (refused from then on, like a revoked one; its rotations keep it); omitted → never.',
  })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  @IsFutureInstant()
  expiresAt?: string | null;
}
