import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export const DEFAULT_OVERLAP_SECONDS = 24 * 60 * 60;
export const MAX_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

/** A rotation's body: how long the old secret keeps working beside the new one (SPEC §8). */
export class RotateDto {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_OVERLAP_SECONDS,
    default: DEFAULT_OVERLAP_SECONDS,
    description: 'Seconds the old secret keeps working (default 24 h, at most 7 days; 0 ends it now).',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_OVERLAP_SECONDS)
  overlapSeconds?: number;
}
