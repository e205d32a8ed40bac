import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

/** Whether a leaving or demoted admin's `rk_` keys pass to the acting admin: the query of the member routes and the members page's forms. */
export class HandOverQueryDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      "true: the rk_ keys the person created pass to you (the acting admin) instead of being revoked. Default false. Their service keys and derived tokens are kept either way.",
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'handOver must be true or false' })
  handOver?: 'true' | 'false';
}
