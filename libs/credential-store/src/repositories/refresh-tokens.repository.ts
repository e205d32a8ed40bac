import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { deleteInBatches, queryAffected, statement, statementIn } from '@app/database';
import type { RefreshTokenOrigin } from '../entities/refresh-token.entity';

/** A presented refresh token's state, read in the rotating transaction. */
export interface PresentedRefreshToken {
  id: string;
  grantId: string;
  /** The client of the token's grant. */
  clientId: string;
  rotated: boolean;
  revoked: boolean;
  expired: boolean;
}

const INSERT = statement(
  'oauth_refresh_tokens.insert',
  `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, parent_id, issued_by, expires_at)
   VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
);
const FIND_BY_HASH = statement(
  'oauth_refresh_tokens.find_by_hash',
  `SELECT r.id, r.grant_id, g.client_id, r.rotated_at IS NOT NULL AS rotated, r.revoked_at IS NOT NULL AS revoked,
          r.expires_at <= now() AS expired
     FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id
    WHERE r.token_hash = $1`,
);
const ROTATE = statement(
  'oauth_refresh_tokens.rotate',
  `UPDATE oauth_refresh_tokens SET rotated_at = now()
    WHERE id = $1 AND rotated_at IS NULL AND revoked_at IS NULL RETURNING id`,
);

/** The `oauth_refresh_tokens` table: rotating `dgr_` tokens of a grant. */
@Injectable()
export class RefreshTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    em: EntityManager,
    token: { tokenHash: string; grantId: string; parentId: string | null; issuedBy: RefreshTokenOrigin; ttlSeconds: number },
  ): Promise<void> {
    await statementIn(em, INSERT, [token.tokenHash, token.grantId, token.parentId, token.issuedBy, token.ttlSeconds]);
  }

  async findByHash(em: EntityManager, tokenHash: string): Promise<PresentedRefreshToken | null> {
    const [row] = await statementIn<{ id: string; grant_id: string; client_id: string; rotated: boolean; revoked: boolean; expired: boolean }>(
      em,
      FIND_BY_HASH,
      [tokenHash],
    );
    return row ? { id: row.id, grantId: row.grant_id, clientId: row.client_id, rotated: row.rotated, revoked: row.revoked, expired: row.expired } : null;
  }

  /** Conditional: true for exactly one caller, the one whose update marked the token rotated. */
  async rotate(em: EntityManager, id: string): Promise<boolean> {
    const won = await statementIn(em, ROTATE, [id]);
    return won.length === 1;
  }

  /**
   * After a lost rotation: whether the token is revoked, and whether its rotation is recent enough
   * to be a parallel refresh. The rotation's time is the winner's transaction start, which can be
   * later than this transaction's start: the window is measured from the statement's clock
   * (`clock_timestamp()`), not `now()`, and a zero window admits no one.
   */
  async rotationState(em: EntityManager, id: string, graceSeconds: number): Promise<{ revoked: boolean; inGrace: boolean } | null> {
    const [state]: { revoked: boolean; in_grace: boolean }[] = await em.query(
      `SELECT revoked_at IS NOT NULL AS revoked, $2 > 0 AND rotated_at > clock_timestamp() - make_interval(secs => $2) AS in_grace
         FROM oauth_refresh_tokens WHERE id = $1`,
      [id, graceSeconds],
    );
    return state ? { revoked: state.revoked, inGrace: state.in_grace } : null;
  }

  revokeForGrant(em: EntityManager, grantId: string): Promise<number> {
    return queryAffected(em, 'UPDATE oauth_refresh_tokens SET revoked_at = now() WHERE grant_id = $1 AND revoked_at IS NULL', [grantId]);
  }

  /**
   * Deletes refresh tokens expired `retentionSeconds` ago (within its lifetime a rotated token
   * still detects reuse), and those of a grant revoked `retentionSeconds` ago.
   */
  deleteSpent(retentionSeconds: number): Promise<number> {
    return deleteInBatches(
      this.dataSource,
      'oauth_refresh_tokens',
      'id',
      `expires_at < now() - make_interval(secs => $1)
        OR grant_id IN (SELECT id FROM oauth_grants WHERE revoked_at < now() - make_interval(secs => $1))`,
      [retentionSeconds],
    );
  }
}
