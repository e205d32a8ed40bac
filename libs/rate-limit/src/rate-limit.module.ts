import { Module } from '@nestjs/common';
import { RateLimitService } from './rate-limit.service';

/** Database-backed rate-limit counters shared by every instance (login, sign-up, client registration). */
@Module({
  providers: [RateLimitService],
  exports: [RateLimitService],
})
export class RateLimitModule {}
