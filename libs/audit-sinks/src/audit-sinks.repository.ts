import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { AuditSink } from './entities/audit-sink.entity';

/** How long a delivering instance holds an organisation's sinks without renewing. */
export const LEASE_SECONDS = 30;

/** The only code that queries `audit_sinks` and `audit_sink_leases`. */
@Injectable()
export class AuditSinksRepository {
  constructor(
    @InjectRepository(AuditSink) private readonly sinks: Repository<AuditSink>,
    private readonly dataSource: DataSource,
  ) {}

  /** Every stored sink secret as it is stored (signing secrets and HEC tokens), for the start-up check and `secrets-rotate`. */
  async storedSecrets(): Promise<{ id: string; column: 'signing_secret' | 'token'; stored: string }[]> {
    const rows: { id: string; signing_secret: string | null; token: string | null }[] = await this.dataSource.query(`SELECT id, signing_secret, token FROM audit_sinks`);
    return rows.flatMap((r) => [
      ...(r.signing_secret ? [{ id: r.id, column: 'signing_secret' as const, stored: r.signing_secret }] : []),
      ...(r.token ? [{ id: r.id, column: 'token' as const, stored: r.token }] : []),
    ]);
  }

  /** Replaces one stored secret, only if it is still `was`. */
  async replaceStoredSecret(id: string, column: 'signing_secret' | 'token', was: string, stored: string): Promise<void> {
    await this.dataSource.query(`UPDATE audit_sinks SET ${column === 'token' ? 'token' : 'signing_secret'} = $3 WHERE id = $1 AND ${column === 'token' ? 'token' : 'signing_secret'} = $2`, [id, was, stored]);
  }

  list(organizationId: string): Promise<AuditSink[]> {
    return this.sinks.find({ where: { organizationId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  find(organizationId: string, id: string): Promise<AuditSink | null> {
    return this.sinks.findOne({ where: { organizationId, id } });
  }

  async insert(
    em: EntityManager,
    values: Pick<AuditSink, 'id' | 'organizationId' | 'kind' | 'url' | 'signingSecret' | 'token'> & { lastDeliveredSeq: number },
  ): Promise<AuditSink> {
    // Checkpoints up to the start count as delivered: the sink's copy begins after them.
    const start = String(values.lastDeliveredSeq);
    const row = em.create(AuditSink, { ...values, lastDeliveredSeq: start, lastCheckpointSeq: start });
    return em.save(AuditSink, row);
  }

  /** Whether a sink was removed (false: there was none). */
  async delete(em: EntityManager, organizationId: string, id: string): Promise<boolean> {
    const rows: { id: string }[] = await em.query(`DELETE FROM audit_sinks WHERE organization_id = $1 AND id = $2 RETURNING id`, [organizationId, id]);
    return rows.length > 0;
  }

  /**
   * The last `seq` every sink of the organisation has received, with the checkpoints up to it
   * (null: it has no sink): how far retention may remove.
   */
  async leastDelivered(organizationId: string): Promise<number | null> {
    const rows: { least: string | null }[] = await this.dataSource.query(
      `SELECT min(least(last_delivered_seq, last_checkpoint_seq)) AS least FROM audit_sinks WHERE organization_id = $1`,
      [organizationId],
    );
    return rows[0]?.least === null || rows[0]?.least === undefined ? null : Number(rows[0].least);
  }

  /** The organisations with a sink due for an attempt. */
  async organizationsDue(): Promise<string[]> {
    const rows: { organization_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT organization_id FROM audit_sinks WHERE next_attempt_at <= now()`,
    );
    return rows.map((r) => r.organization_id);
  }

  /**
   * Takes (or renews) the organisation's delivery lease for `holder`: true when this instance now
   * delivers its sinks, false while another instance's lease runs. One conditional statement.
   */
  async takeLease(organizationId: string, holder: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO audit_sink_leases (organization_id, holder, expires_at) VALUES ($1, $2, now() + $3 * interval '1 second')
       ON CONFLICT (organization_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
        WHERE audit_sink_leases.holder = EXCLUDED.holder OR audit_sink_leases.expires_at <= now()
       RETURNING organization_id`,
      [organizationId, holder, LEASE_SECONDS],
    );
    return rows.length > 0;
  }

  async releaseLease(organizationId: string, holder: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM audit_sink_leases WHERE organization_id = $1 AND holder = $2`, [organizationId, holder]);
  }

  /** The organisation's sinks due for an attempt. */
  due(organizationId: string): Promise<AuditSink[]> {
    return this.sinks
      .createQueryBuilder('s')
      .where('s.organization_id = :organizationId AND s.next_attempt_at <= now()', { organizationId })
      .orderBy('s.created_at')
      .getMany();
  }

  /**
   * Records a delivered batch: the sink moves from `fromSeq` to `toSeq`, its failures cleared.
   * Conditional on `fromSeq`, and only while `holder` still holds the lease: false when it lost it.
   */
  async delivered(sinkId: string, fromSeq: number, toSeq: number, checkpointSeq: number, holder: string, batchLimit: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `UPDATE audit_sinks s SET last_delivered_seq = $3, last_checkpoint_seq = greatest(s.last_checkpoint_seq, $6), last_error = NULL, failures = 0, batch_limit = $5, next_attempt_at = now()
        WHERE s.id = $1 AND s.last_delivered_seq = $2
          AND EXISTS (SELECT 1 FROM audit_sink_leases l WHERE l.organization_id = s.organization_id AND l.holder = $4 AND l.expires_at > now())
        RETURNING s.id`,
      [sinkId, fromSeq, toSeq, holder, batchLimit, checkpointSeq],
    );
    return rows.length > 0;
  }

  /** Records a failed attempt: its error, and the next attempt after `retryInSeconds`. */
  async failed(sinkId: string, error: string, retryInSeconds: number, batchLimit: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE audit_sinks SET last_error = $2, failures = failures + 1, batch_limit = $4, next_attempt_at = now() + $3 * interval '1 second' WHERE id = $1`,
      [sinkId, error, retryInSeconds, batchLimit],
    );
  }
}
