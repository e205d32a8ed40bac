import { Module } from '@nestjs/common';
import { RateLimitCountersRepository } from './rate-limit-counters.repository';
import { RateLimitService } from './rate-limit.service';

/** Database-backed rate-limit counters shared by every instance (login, sign-up, client registration). */
@Module({
  providers: [RateLimitCountersRepository, RateLimitService],
  exports: [RateLimitService],
})
export class RateLimitModule {}
