import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MaxLength } from 'class-validator';

export const SERVICE_KEYS_PAGE_DEFAULT = 50;
export const SERVICE_KEYS_PAGE_MAX = 100;

/** `limit` and `cursor` of the service-key and derived-token lists (keyset pagination). */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: SERVICE_KEYS_PAGE_MAX, default: SERVICE_KEYS_PAGE_DEFAULT, description: 'Items per page.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(SERVICE_KEYS_PAGE_MAX)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page (opaque).' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}
