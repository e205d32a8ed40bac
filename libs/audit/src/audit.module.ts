import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditEventsService } from './audit-events.service';
import { AuditService } from './audit.service';
import { BufferedRecords } from './buffered-records';
import { RefusalAggregates } from './refusal-aggregates';
import { AuditChainRepository } from './chain/audit-chain.repository';
import { AuditChainService } from './chain/audit-chain.service';
import { AuditRetentionRepository } from './chain/audit-retention.repository';
import { AuditRetentionService } from './chain/audit-retention.service';
import { AuditSealer } from './chain/audit-sealer';
import { CheckpointSigner } from './chain/checkpoint-signer';
import { SealingNudge } from './chain/sealing-nudge';
import { AuditChain, AuditCheckpoint, AuditCheckpointKey } from './entities/audit-chain.entity';
import { AuditEvent } from './entities/audit-event.entity';

/** The audit trail: the transactional recorder, the sealer of its chains, the event list, the export and verification. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEvent, AuditChain, AuditCheckpoint, AuditCheckpointKey])],
  providers: [AuditEventsRepository, AuditService, AuditEventsService, AuditChainRepository, AuditChainService, AuditRetentionRepository, AuditRetentionService, AuditSealer, CheckpointSigner, SealingNudge, BufferedRecords, RefusalAggregates],
  exports: [AuditService, AuditEventsService, AuditChainService, AuditRetentionService, AuditSealer, BufferedRecords, RefusalAggregates],
})
export class AuditModule {}
