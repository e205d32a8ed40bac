import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Rounds } from '@app/common';
import { isPgError, PG_LOCK_NOT_AVAILABLE } from '@app/database';
import { AuditEventsRepository, type NewAuditEvent } from '../audit-events.repository';
import { SERVICE_CHAIN } from '../ocsf/ocsf-common';
import { ocsfEventOf } from '../ocsf/ocsf-events';
import { AuditChainRepository, type ChainHead } from './audit-chain.repository';
import { chainHash, type ChainLink, GENESIS_HASH } from './chain-hash';
import { CheckpointSigner } from './checkpoint-signer';
import { SealingNudge } from './sealing-nudge';

/** How many records one sealing transaction takes. */
export const SEAL_BATCH = 500;
/** A checkpoint every this many records, or every `CHECKPOINT_EVERY_MS` when the head moved. */
export const CHECKPOINT_EVERY_RECORDS = 1000;
export const CHECKPOINT_EVERY_MS = 60_000;
/**
 * How long a batch of buffered records waits for a round that holds its chain's head (a round
 * takes tens of milliseconds) before it is written unsealed: it stays in memory meanwhile.
 */
const HEAD_WAIT_MS = 100;
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
    private readonly events: AuditEventsRepository,
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
      const links = await this.sealOlder(em, chain, head);
      await this.closeRound(em, chain, head, links.at(-1), checkpointNow);
      return links.length;
    });
  }

  /**
   * Writes buffered records (reads, and the others `BufferedRecords` takes) already sealed, so no
   * seal rewrites their rows (docs/audit.md, "The chain"): per chain, one short transaction that
   * takes the chain's head, seals its older unsealed records first, then inserts these with the
   * next places. It waits up to `HEAD_WAIT_MS` for a round that holds the head (nobody waits on
   * these records: they are written after the answers). Behind a longer hold (a segment's
   * expiry) or a full batch of older records still to seal, they are written unsealed, for the
   * rounds (and this instance's sealer is handed their events, `SealingNudge.written`).
   */
  async writeSealed(records: NewAuditEvent[]): Promise<void> {
    const chains = new Map<string, NewAuditEvent[]>();
    for (const record of records) {
      const ofChain = chains.get(record.chain);
      if (ofChain) ofChain.push(record);
      else chains.set(record.chain, [record]);
    }
    const failed: string[] = [];
    for (const [chain, ofChain] of chains) {
      // One chain's failure does not keep another's records from being written.
      await this.writeChain(chain, ofChain).catch((error: unknown) => failed.push(`${ofChain.length} of ${chain === SERVICE_CHAIN ? 'the service chain' : `chain ${chain}`}: ${(error as Error).message}`));
    }
    if (failed.length > 0) throw new Error(failed.join('; '));
  }

  private async writeChain(chain: string, records: NewAuditEvent[]): Promise<void> {
    await this.chains.ensureChain(chain);
    const written = await this.dataSource
      .transaction(async (em) => {
        const head = await this.chains.holdHead(em, chain, HEAD_WAIT_MS);
        if (!head) throw new Error(`audit chain ${chain} has no head`);
        const older = await this.sealOlder(em, chain, head);
        if (older.length === SEAL_BATCH) {
          await this.events.insertMany(records, em);
          await this.closeRound(em, chain, head, older.at(-1), false);
          return 'unsealed';
        }
        const next = linker(older.at(-1) ?? head);
        const links = records.map((record) => next(record.event));
        await this.events.insertMany(records, em, links);
        await this.closeRound(em, chain, head, links.at(-1), false);
        return 'sealed';
      })
      .catch((error: unknown) => {
        if (isPgError(error, PG_LOCK_NOT_AVAILABLE)) return 'held';
        throw error;
      });
    if (written === 'held') await this.events.insertMany(records);
    if (written !== 'sealed') this.nudge.written(records);
  }

  /** Seals up to a batch of the chain's unsealed records, in `created_at` order, after the held head. */
  private async sealOlder(em: EntityManager, chain: string, head: ChainHead): Promise<ChainLink[]> {
    const records = await this.chains.unsealed(em, chain, SEAL_BATCH, (id) => this.nudge.take(id));
    const next = linker(head);
    const links = records.map((record) => {
      // A row older than events gets its event built now, stored with its seal.
      const event = record.event === null ? ocsfEventOf(record.source) : record.event;
      return { id: record.id, ...next(event), event: record.event === null ? event : null };
    });
    if (links.length > 0) await this.chains.seal(em, links);
    return links;
  }

  /** Moves the held head to the last record sealed (if any), and signs a checkpoint when one is due. */
  private async closeRound(em: EntityManager, chain: string, head: ChainHead, last: ChainLink | undefined, checkpointNow: boolean): Promise<void> {
    if (last) await this.chains.moveHead(em, chain, last.seq, last.hash);
    const seq = last?.seq ?? head.seq;
    const hash = last?.hash ?? head.hash ?? GENESIS_HASH;
    const now = Date.now();
    const due = seq - head.checkpointSeq >= CHECKPOINT_EVERY_RECORDS || now - head.checkpointAt.getTime() >= CHECKPOINT_EVERY_MS || checkpointNow;
    if (seq > head.checkpointSeq && due) {
      await this.chains.saveCheckpoint(em, chain, this.signer.sign(chain, { seq, hash, time: now }), this.signer.publicKey);
    }
  }
}

/** The places after `after` (a held head, or the last record sealed), one per call: `seq`, `prevHash`, `hash`. */
function linker(after: { seq: number; hash: string | null }): (event: Record<string, unknown>) => ChainLink {
  let seq = after.seq;
  let hash = after.hash ?? GENESIS_HASH;
  return (event) => {
    const prevHash = hash;
    seq += 1;
    hash = chainHash(event, seq, prevHash);
    return { seq, prevHash, hash };
  };
}
