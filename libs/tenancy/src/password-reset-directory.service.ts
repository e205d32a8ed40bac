import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PasswordResetLink } from './entities/password-reset-link.entity';

/**
 * The `password_reset_links` table: one-time links looked up by the SHA-256 digest of their
 * secret. Using one is a conditional update (unused and unexpired → used), so it works once.
 */
@Injectable()
export class PasswordResetDirectory {
  constructor(private readonly dataSource: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(PasswordResetLink);
  }

  async create(userId: string, tokenHash: string, expiresAt: Date, em?: EntityManager): Promise<{ id: string; expiresAt: Date }> {
    const saved = await this.repo(em).save(this.repo(em).create({ userId, tokenHash, expiresAt, usedAt: null }));
    return { id: saved.id, expiresAt: saved.expiresAt };
  }

  /** Whether the link is still usable (what the reset page checks before showing its form). */
  async isUsable(tokenHash: string): Promise<boolean> {
    return this.repo()
      .createQueryBuilder('l')
      .where('l.tokenHash = :tokenHash AND l.usedAt IS NULL AND l.expiresAt > now()', { tokenHash })
      .getExists();
  }

  /** Uses the link: the person it resets, or null when it is unknown, used or expired. */
  async consume(tokenHash: string, em: EntityManager): Promise<{ id: string; userId: string } | null> {
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set({ usedAt: () => 'now()' })
      .where('token_hash = :tokenHash AND used_at IS NULL AND expires_at > now()', { tokenHash })
      .returning('id, user_id')
      .updateEntity(false)
      .execute();
    const [row] = result.raw as { id: string; user_id: string }[];
    return row ? { id: row.id, userId: row.user_id } : null;
  }
}
