import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Rounds } from '@app/common';
import { ocsfEventOf } from '../ocsf/ocsf-events';
import { AuditChainRepository } from './audit-chain.repository';
import { chainHash, GENESIS_HASH } from './chain-hash';
import { CheckpointSigner } from './checkpoint-signer';
import { SealingNudge } from './sealing-nudge';

/** How many records one sealing transaction takes. */
export const SEAL_BATCH = 500;
/** A checkpoint every this many records, or every `CHECKPOINT_EVERY_MS` when the head moved. */
export const CHECKPOINT_EVERY_RECORDS = 1000;
export const CHECKPOINT_EVERY_MS = 60_000;
/** Rounds without a nudge: they find what another instance wrote and could not seal. */
const ROUND_MS = 500;
/** After a nudge: soon after the write's transaction has committed. */
const NUDGE_MS = 50;

/**
 * Seals every chain's records in order (docs/audit.md, "The chain"). Each instance runs rounds;
 * a chain is sealed by whoever holds its `audit_chains` row (`FOR UPDATE SKIP LOCKED`) for one
 * short transaction, so one sealer per chain across instances, and writers never wait on it.
 */
@Injectable()
export class AuditSealer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AuditSealer.name);
  private readonly rounds = new Rounds(
    () => this.round(),
    ROUND_MS,
    (error) => this.logger.warn(`audit sealing failed, retried at the next round: ${error.message}`),
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly chains: AuditChainRepository,
    private readonly signer: CheckpointSigner,
    private readonly nudge: SealingNudge,
  ) {
    nudge.listen(() => this.rounds.soon(NUDGE_MS));
  }

  onApplicationBootstrap(): void {
    this.rounds.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
  }

  /** Seals everything ready now (what the rounds do), and answers once done: for tests and the command line. */
  sealNow(): Promise<void> {
    return this.rounds.now();
  }

  private async round(): Promise<void> {
    for (const chain of await this.chains.chainsToSeal()) {
      while ((await this.sealChain(chain)) === SEAL_BATCH);
    }
    // A chain that went quiet still gets its checkpoint once its last one is a minute old.
    for (const chain of await this.chains.chainsDueForCheckpoint(CHECKPOINT_EVERY_MS)) await this.sealChain(chain);
  }

  /** Seals up to a batch of one chain's records; how many (0 when another instance holds the chain). */
  async sealChain(chain: string, checkpointNow = false): Promise<number> {
    await this.chains.ensureChain(chain);
    return this.dataSource.transaction(async (em) => {
      const head = await this.chains.holdHead(em, chain);
      if (!head) return 0;
      const records = await this.chains.unsealed(em, chain, SEAL_BATCH, (id) => this.nudge.take(id));
      let seq = head.seq;
      let hash = head.hash ?? GENESIS_HASH;
      const links = records.map((record) => {
        // A row older than events gets its event built now, stored with its seal.
        const event = record.event === null ? ocsfEventOf(record.source) : record.event;
        const prevHash = hash;
        seq += 1;
        hash = chainHash(event, seq, prevHash);
        return { id: record.id, seq, prevHash, hash, event: record.event === null ? event : null };
      });
      if (links.length > 0) await this.chains.seal(em, chain, links);
      const now = Date.now();
      const due = seq - head.checkpointSeq >= CHECKPOINT_EVERY_RECORDS || now - head.checkpointAt.getTime() >= CHECKPOINT_EVERY_MS || checkpointNow;
      if (seq > head.checkpointSeq && due) {
        await this.chains.saveCheckpoint(em, chain, this.signer.sign(chain, { seq, hash, time: now }), this.signer.publicKey);
      }
      return links.length;
    });
  }
}
