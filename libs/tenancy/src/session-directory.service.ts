import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { SignInSession } from './entities/sign-in-session.entity';
import { User } from './entities/user.entity';

/** The most sessions a person's list shows. */
export const SESSION_LIST_LIMIT = 50;

export interface SessionRecord {
  id: string;
  createdAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  ip: string | null;
}

/**
 * The `sessions` table: one row per sign-in (the session JWT's `jti`). A session is live while its
 * row exists and `expires_at > now()` (SPEC §10: one mechanism, the database's clock): the session
 * check (`liveSessionEmail`), the person's list of their sessions, and every way a session ends
 * (sign-out, sign out everywhere, a password change, a reset, an email's release) deletes rows.
 */
@Injectable()
export class SessionDirectory {
  constructor(private readonly dataSource: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(SignInSession);
  }

  /** Records a sign-in; `ssoIssuer` is the identity provider's issuer of a single sign-on, null (or left out) for a password. */
  async record(userId: string, session: SessionRecord & { ssoIssuer?: string | null }): Promise<void> {
    await this.repo().insert({ ...session, ssoIssuer: session.ssoIssuer ?? null, userId });
  }

  /**
   * The person's email while the session is live (null when not): its row exists, is the
   * person's, and has not expired by the database's clock. One lookup by primary key.
   */
  async liveSessionEmail(userId: string, id: string): Promise<string | null> {
    const row = await this.repo()
      .createQueryBuilder('s')
      .innerJoin(User, 'u', 'u.id = s.userId')
      .select('u.email', 'email')
      .where('s.id = :id AND s.userId = :userId', { id, userId })
      .andWhere('s.expiresAt > now()')
      .getRawOne<{ email: string }>();
    return row?.email ?? null;
  }

  /** The person's sessions that still work (not expired), newest first, at most `SESSION_LIST_LIMIT`. */
  async listLive(userId: string): Promise<SessionRecord[]> {
    const rows = await this.repo()
      .createQueryBuilder('s')
      .where('s.userId = :userId', { userId })
      .andWhere('s.expiresAt > now()')
      .orderBy('s.createdAt', 'DESC')
      .addOrderBy('s.id', 'DESC')
      .limit(SESSION_LIST_LIMIT)
      .getMany();
    return rows.map(({ id, createdAt, expiresAt, userAgent, ip }) => ({ id, createdAt, expiresAt, userAgent, ip }));
  }

  /**
   * Whether the person proved who they are in this session within the last `seconds`, by the
   * database's clock (false for a session that has no row).
   */
  async authenticatedWithin(userId: string, id: string, seconds: number): Promise<boolean> {
    const rows: { recent: boolean }[] = await this.dataSource.query(
      'SELECT authenticated_at > now() - make_interval(secs => $3) AS recent FROM sessions WHERE id = $1 AND user_id = $2',
      [id, userId, seconds],
    );
    return rows[0]?.recent === true;
  }

  /** Records that the person proved who they are again in this session (now, by the database's clock). */
  async markAuthenticated(userId: string, id: string, em?: EntityManager): Promise<boolean> {
    const result = await this.repo(em).createQueryBuilder().update().set({ authenticatedAt: () => 'now()' }).where('id = :id AND user_id = :userId', { id, userId }).execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Ends one of the person's sessions (sign-out): its row goes, so it is refused from now on, on
   * every instance. False when the person has no session with that id.
   */
  async forget(userId: string, id: string): Promise<boolean> {
    const result = await this.repo().delete({ id, userId });
    return (result.affected ?? 0) > 0;
  }

  /** Ends every session of the person issued before now (`em`'s transaction start), with the change that ends them. */
  async forgetAllBeforeNow(userId: string, em?: EntityManager): Promise<void> {
    await this.repo(em).createQueryBuilder().delete().where('user_id = :userId', { userId }).andWhere('created_at < now()').execute();
  }

  /** Deletes expired sessions; the number removed. */
  async deleteExpired(): Promise<number> {
    const result = await this.repo().createQueryBuilder().delete().where('expires_at < now()').execute();
    return result.affected ?? 0;
  }
}
