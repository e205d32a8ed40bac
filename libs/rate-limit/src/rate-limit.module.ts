import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateLimitLease } from './entities/rate-limit-lease.entity';
import { RateLimitCountersRepository } from './rate-limit-counters.repository';
import { RateLimitLeasesRepository } from './rate-limit-leases.repository';
import { RateLimitService } from './rate-limit.service';
import { SharedBudgets } from './shared-window-budget';

/**
 * Database-backed rate-limit counters shared by every instance (login, sign-up, client
 * registration), and the leased budgets of the MCP request limits (`SharedBudgets`).
 */
@Module({
  imports: [TypeOrmModule.forFeature([RateLimitLease])],
  providers: [RateLimitCountersRepository, RateLimitService, RateLimitLeasesRepository, SharedBudgets],
  exports: [RateLimitService, SharedBudgets],
})
export class RateLimitModule {}
