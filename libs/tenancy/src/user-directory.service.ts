import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import { normalizeEmail } from './email';
import { User } from './entities/user.entity';
import { SessionDirectory } from './session-directory.service';

/** A person as the rest of the service sees them (never with their password hash). */
export interface UserProfile {
  id: string;
  email: string;
  name: string;
  createdAt: Date;
}

export interface NewUser {
  email: string;
  name: string;
  passwordHash: string;
}

/** The `users` table: people, looked up by id or by email (case-insensitive, normalised here). */
@Injectable()
export class UserDirectory {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sessions: SessionDirectory,
  ) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(User);
  }

  async exists(userId: string): Promise<boolean> {
    return this.repo().existsBy({ id: userId });
  }

  async findById(userId: string, em?: EntityManager): Promise<UserProfile | null> {
    const user = await this.repo(em).findOne({ where: { id: userId }, select: { id: true, email: true, name: true, createdAt: true } });
    return user ? { id: user.id, email: user.email, name: user.name, createdAt: user.createdAt } : null;
  }

  /** Names and emails by id (for lists that say who did something); unknown ids are left out. */
  async profilesOf(userIds: readonly string[]): Promise<Map<string, { name: string; email: string }>> {
    if (userIds.length === 0) return new Map();
    const users = await this.repo().find({ where: { id: In([...new Set(userIds)]) }, select: { id: true, email: true, name: true } });
    return new Map(users.map((u) => [u.id, { name: u.name, email: u.email }]));
  }

  async isEmailTaken(email: string, em?: EntityManager): Promise<boolean> {
    return this.repo(em).createQueryBuilder('u').where('lower(u.email) = :email', { email: normalizeEmail(email) }).getExists();
  }

  /** The id of the account with this email, if any. */
  async idByEmail(email: string, em?: EntityManager): Promise<string | null> {
    const user = await this.repo(em)
      .createQueryBuilder('u')
      .select('u.id')
      .where('lower(u.email) = :email', { email: normalizeEmail(email) })
      .getOne();
    return user?.id ?? null;
  }

  /** What a password login checks: the account's id and stored hash, if the email is known. */
  async loginRecord(email: string): Promise<{ id: string; passwordHash: string } | null> {
    const user = await this.repo()
      .createQueryBuilder('u')
      .select('u.id')
      .addSelect('u.passwordHash')
      .where('lower(u.email) = :email', { email: normalizeEmail(email) })
      .getOne();
    return user ? { id: user.id, passwordHash: user.passwordHash } : null;
  }

  /**
   * Stores a re-made hash of the same password, unless the stored hash changed meanwhile (a
   * password change in between wins).
   */
  async replacePasswordHash(userId: string, previous: string, next: string): Promise<void> {
    await this.repo().update({ id: userId, passwordHash: previous }, { passwordHash: next });
  }

  /**
   * Inserts a person (email normalised, name trimmed), or answers null when the email is taken.
   * `ON CONFLICT DO NOTHING` on the lower(email) index: a parallel sign-up with the same email
   * loses here without a failed statement, so the caller's transaction stays usable.
   */
  async create(input: NewUser, em?: EntityManager): Promise<Omit<UserProfile, 'createdAt'> | null> {
    const result = await this.repo(em)
      .createQueryBuilder()
      .insert()
      .values({ email: normalizeEmail(input.email), name: input.name.trim(), passwordHash: input.passwordHash })
      .orIgnore()
      .returning(['id', 'email', 'name'])
      .updateEntity(false)
      .execute();
    const [row] = result.raw as { id: string; email: string; name: string }[];
    return row ? { id: row.id, email: row.email, name: row.name } : null;
  }

  /**
   * Gives the account the address `replacement` and ends its sessions, in `em`'s transaction, only
   * while it still has `email` (one conditional update: a parallel release or change wins once).
   */
  async replaceEmail(userId: string, email: string, replacement: string, em: EntityManager): Promise<boolean> {
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set({ email: replacement })
      .where('id = :userId AND lower(email) = :email', { userId, email: normalizeEmail(email) })
      .execute();
    if (!result.affected) return false;
    await this.sessions.forgetAllBeforeNow(userId, em);
    return true;
  }

  /** Renames the person (name trimmed), in `em`'s transaction. */
  async rename(userId: string, name: string, em: EntityManager): Promise<void> {
    await this.repo(em).update({ id: userId }, { name: name.trim() });
  }

  /** Sets a new password hash and ends every session issued before now, in `em`'s transaction. */
  async setPassword(userId: string, passwordHash: string, em: EntityManager): Promise<void> {
    await this.repo(em).update({ id: userId }, { passwordHash });
    await this.sessions.forgetAllBeforeNow(userId, em);
  }
}
