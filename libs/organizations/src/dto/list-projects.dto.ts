import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class ListProjectsQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50, description: 'Projects per page.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page (opaque).' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}
