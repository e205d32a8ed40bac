import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PasswordResetLink } from './entities/password-reset-link.entity';

/**
 * `:issuer` administers every organisation `:userId` belongs to: what an organisation's admin
 * needs to reset that person's password (otherwise they could take over an account that
 * administers another organisation).
 */
const ISSUER_ADMINISTERS_EVERY_MEMBERSHIP = `NOT EXISTS (
  SELECT 1 FROM memberships t WHERE t.user_id = :userId AND NOT EXISTS (
    SELECT 1 FROM memberships a WHERE a.organization_id = t.organization_id AND a.user_id = :issuer AND a.role = 'admin'))`;

/**
 * A link still within its right, as a condition on the `password_reset_links` row: the command
 * line's (no issuer), or one whose issuer is still an admin of its organisation, whose person is
 * still a member of it, and whose issuer still administers every organisation of that person.
 */
const STILL_AUTHORISED = `(issued_by IS NULL OR (
  EXISTS (SELECT 1 FROM memberships a WHERE a.organization_id = password_reset_links.organization_id AND a.user_id = password_reset_links.issued_by AND a.role = 'admin')
  AND EXISTS (SELECT 1 FROM memberships p WHERE p.organization_id = password_reset_links.organization_id AND p.user_id = password_reset_links.user_id)
  AND NOT EXISTS (
    SELECT 1 FROM memberships t WHERE t.user_id = password_reset_links.user_id AND NOT EXISTS (
      SELECT 1 FROM memberships a2 WHERE a2.organization_id = t.organization_id AND a2.user_id = password_reset_links.issued_by AND a2.role = 'admin'))))`;

const USABLE = `used_at IS NULL AND expires_at > now() AND ${STILL_AUTHORISED}`;

/**
 * The `password_reset_links` table: one-time links looked up by the SHA-256 digest of their
 * secret. Using one is a conditional update (unused, unexpired and still authorised → used), so
 * it works once, and only while its issuer may still issue it.
 */
@Injectable()
export class PasswordResetDirectory {
  constructor(private readonly dataSource: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(PasswordResetLink);
  }

  /** `issuer` null: the command line's link (any account). */
  async create(
    userId: string,
    tokenHash: string,
    expiresAt: Date,
    em?: EntityManager,
    issuer: { organizationId: string; userId: string } | null = null,
  ): Promise<{ id: string; expiresAt: Date }> {
    const saved = await this.repo(em).save(
      this.repo(em).create({ userId, tokenHash, expiresAt, usedAt: null, organizationId: issuer?.organizationId ?? null, issuedBy: issuer?.userId ?? null }),
    );
    return { id: saved.id, expiresAt: saved.expiresAt };
  }

  /** Whether `issuer` administers every organisation `userId` belongs to (and so may reset their password). */
  async mayIssue(issuer: string, userId: string, em?: EntityManager): Promise<boolean> {
    const [row] = (await (em ?? this.dataSource.manager).query(
      `SELECT ${ISSUER_ADMINISTERS_EVERY_MEMBERSHIP.replaceAll(':userId', '$1').replaceAll(':issuer', '$2')} AS ok`,
      [userId, issuer],
    )) as { ok: boolean }[];
    return row?.ok === true;
  }

  /** Whether the link is still usable (what the reset page checks before showing its form). */
  async isUsable(tokenHash: string): Promise<boolean> {
    const rows = (await this.dataSource.manager.query(`SELECT 1 FROM password_reset_links WHERE token_hash = $1 AND ${USABLE} LIMIT 1`, [
      tokenHash,
    ])) as unknown[];
    return rows.length > 0;
  }

  /** Uses the link: the person it resets, or null when it is unknown, used, expired or no longer authorised. */
  async consume(tokenHash: string, em: EntityManager): Promise<{ id: string; userId: string } | null> {
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set({ usedAt: () => 'now()' })
      .where(`token_hash = :tokenHash AND ${USABLE}`, { tokenHash })
      .returning('id, user_id')
      .updateEntity(false)
      .execute();
    const [row] = result.raw as { id: string; user_id: string }[];
    return row ? { id: row.id, userId: row.user_id } : null;
  }
}
