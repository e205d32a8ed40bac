import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { deleteInBatches, queryReturning } from '@app/database';
import { AuthorizationCode } from '../entities/authorization-code.entity';

/** What a consumed code was bound to. */
export interface ConsumedCode {
  grantId: string;
  clientId: string;
  redirectUri: string;
  redirectUriSent: boolean;
  codeChallenge: string;
  expired: boolean;
}

/** The `oauth_authorization_codes` table: single-use `dgc_` codes. */
@Injectable()
export class AuthorizationCodesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    em: EntityManager,
    code: Pick<AuthorizationCode, 'codeHash' | 'grantId' | 'clientId' | 'redirectUri' | 'redirectUriSent' | 'codeChallenge' | 'resource'>,
    ttlSeconds: number,
  ): Promise<void> {
    await em.getRepository(AuthorizationCode).insert({
      ...code,
      expiresAt: () => `now() + make_interval(secs => ${Math.trunc(ttlSeconds)})`,
    });
  }

  /**
   * Conditional single use by the code's own client: exactly one caller presenting it as
   * `clientId` gets the code's binding; everyone else null (another client never spends it).
   */
  async consume(em: EntityManager, codeHash: string, clientId: string): Promise<ConsumedCode | null> {
    const [row] = await queryReturning<{
      grant_id: string;
      client_id: string;
      redirect_uri: string;
      redirect_uri_sent: boolean;
      code_challenge: string;
      expired: boolean;
    }>(
      em,
      `UPDATE oauth_authorization_codes SET used_at = now()
        WHERE code_hash = $1 AND used_at IS NULL AND client_id = $2
       RETURNING grant_id, client_id, redirect_uri, redirect_uri_sent, code_challenge, expires_at <= now() AS expired`,
      [codeHash, clientId],
    );
    if (!row) return null;
    return {
      grantId: row.grant_id,
      clientId: row.client_id,
      redirectUri: row.redirect_uri,
      redirectUriSent: row.redirect_uri_sent,
      codeChallenge: row.code_challenge,
      expired: row.expired,
    };
  }

  /** A code `consume` did not hand out: its client and grant, and whether it was used, for replay handling. */
  async find(em: EntityManager, codeHash: string): Promise<{ clientId: string; grantId: string; used: boolean } | null> {
    const code = await em.getRepository(AuthorizationCode).findOne({
      select: { clientId: true, grantId: true, usedAt: true },
      where: { codeHash },
    });
    return code ? { clientId: code.clientId, grantId: code.grantId, used: code.usedAt !== null } : null;
  }

  /**
   * Unused and expired: nothing left to detect. Used: kept `retentionSeconds` past expiry, so a
   * replay still revokes the grant (RFC 6749 §4.1.2).
   */
  deleteSpent(retentionSeconds: number): Promise<number> {
    return deleteInBatches(
      this.dataSource,
      'oauth_authorization_codes',
      'id',
      `(used_at IS NULL AND expires_at < now()) OR expires_at < now() - make_interval(secs => $1)`,
      [retentionSeconds],
    );
  }

  /** The grants the remaining codes point to (codes live minutes, and used ones a day: a short list). */
  async grantIds(): Promise<string[]> {
    const rows: { grant_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT grant_id FROM oauth_authorization_codes WHERE grant_id IS NOT NULL`,
    );
    return rows.map((r) => r.grant_id);
  }

  /** Deletes every code of these grants. */
  deleteForGrants(grantIds: readonly string[]): Promise<number> {
    if (grantIds.length === 0) return Promise.resolve(0);
    return deleteInBatches(this.dataSource, 'oauth_authorization_codes', 'id', 'grant_id = ANY($1)', [grantIds]);
  }
}
