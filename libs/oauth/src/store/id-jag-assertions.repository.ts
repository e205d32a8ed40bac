import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { deleteInBatches, queryReturning } from '@app/database';

/** The `id_jag_assertions` table: the (issuer, jti) of the ID-JAGs already traded. */
@Injectable()
export class IdJagAssertionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records the assertion as used; false when it already was. One insert that yields on the
   * primary key: of concurrent trades of one assertion (on any instance) exactly one records it.
   */
  async use(em: EntityManager, issuer: string, jti: string, expiresAt: Date): Promise<boolean> {
    const rows = await queryReturning<{ jti: string }>(
      em,
      `INSERT INTO id_jag_assertions (issuer, jti, expires_at) VALUES ($1, $2, $3) ON CONFLICT (issuer, jti) DO NOTHING RETURNING jti`,
      [issuer, jti, expiresAt],
    );
    return rows.length > 0;
  }

  /**
   * Deletes the rows of assertions that expired more than `graceSeconds` ago: an expired
   * assertion is refused for its expiry before its `jti` is looked at, so its row is no longer needed.
   */
  deleteExpired(graceSeconds: number): Promise<number> {
    return deleteInBatches(this.dataSource, 'id_jag_assertions', 'ctid', 'expires_at < now() - make_interval(secs => $1)', [graceSeconds]);
  }
}
