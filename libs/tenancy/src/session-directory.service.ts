import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { RevokedSession } from './entities/revoked-session.entity';
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
 * The `sessions` table: one row per sign-in (the session JWT's `jti`), for the person's list of
 * their sessions. The session check itself does not read it (`UserDirectory.liveSessionEmail`).
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
   * The person's sessions that still work, newest first, at most `SESSION_LIST_LIMIT`: not
   * expired, not issued before their `sessions_not_before`, not signed out.
   */
  async listLive(userId: string): Promise<SessionRecord[]> {
    const rows = await this.repo()
      .createQueryBuilder('s')
      .innerJoin(User, 'u', 'u.id = s.userId')
      .where('s.userId = :userId', { userId })
      .andWhere('s.expiresAt > now()')
      .andWhere('(u.sessionsNotBefore IS NULL OR u.sessionsNotBefore <= s.createdAt)')
      .andWhere((qb) => `NOT EXISTS ${qb.subQuery().select('1').from(RevokedSession, 'r').where('r.jti = s.id').getQuery()}`)
      .orderBy('s.createdAt', 'DESC')
      .addOrderBy('s.id', 'DESC')
      .limit(SESSION_LIST_LIMIT)
      .getMany();
    return rows.map(({ id, createdAt, expiresAt, userAgent, ip }) => ({ id, createdAt, expiresAt, userAgent, ip }));
  }

  /** Until when one of the person's sessions works, or null if they have no such session. */
  async expiryOfOwn(userId: string, id: string): Promise<Date | null> {
    const row = await this.repo().findOne({ where: { id, userId }, select: { expiresAt: true } });
    return row?.expiresAt ?? null;
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

  /** Forgets one signed-out session. */
  async forget(userId: string, id: string): Promise<void> {
    await this.repo().delete({ id, userId });
  }

  /** Forgets every session of the person issued before now (`em`'s transaction start), with the change that ends them. */
  async forgetAllBeforeNow(userId: string, em: EntityManager): Promise<void> {
    await this.repo(em).createQueryBuilder().delete().where('user_id = :userId', { userId }).andWhere('created_at < now()').execute();
  }

  /** Deletes expired sessions; the number removed. */
  async deleteExpired(): Promise<number> {
    const result = await this.repo().createQueryBuilder().delete().where('expires_at < now()').execute();
    return result.affected ?? 0;
  }
}
