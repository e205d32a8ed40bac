import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, IsNull, Not } from 'typeorm';
import { IdentityLink } from './entities';

/**
 * The table `identity_links`: a person's link to an IdP account by (`issuer`, `subject`), and
 * pending links (no subject yet) of accounts SCIM created.
 */
@Injectable()
export class IdentityLinkDirectory {
  constructor(private readonly dataSource: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(IdentityLink);
  }

  /** The person linked to (`issuer`, `subject`), or null. */
  async userFor(issuer: string, subject: string, em?: EntityManager): Promise<string | null> {
    const row = await this.repo(em).findOne({ where: { issuer, subject }, select: { userId: true } });
    return row?.userId ?? null;
  }

  /** Whether the person has any link to an IdP, filled or pending (an account single sign-on or SCIM made or linked). */
  async hasAnyLink(userId: string, em?: EntityManager): Promise<boolean> {
    return this.repo(em).exists({ where: { userId } });
  }

  /** The person's link to this issuer: its subject, or null while pending; undefined when none. */
  async linkOf(userId: string, issuer: string, em?: EntityManager): Promise<{ subject: string | null } | undefined> {
    // The id is selected too: TypeORM builds no entity from a row whose selected columns are all null (a pending link).
    const row = await this.repo(em).findOne({ where: { userId, issuer }, select: { id: true, subject: true } });
    return row ? { subject: row.subject } : undefined;
  }

  /**
   * Links the person to (`issuer`, `subject`): fills a pending link or adds one. False when that
   * IdP account is already linked to someone else, or the person to another subject there.
   */
  async link(userId: string, issuer: string, subject: string, em: EntityManager): Promise<boolean> {
    const filled = await this.repo(em).update({ userId, issuer, subject: IsNull() }, { subject, linkedAt: () => 'now()' });
    if ((filled.affected ?? 0) > 0) return true;
    const inserted = await this.repo(em)
      .createQueryBuilder()
      .insert()
      .values({ userId, issuer, subject, linkedAt: () => 'now()' })
      .orIgnore()
      .returning(['id'])
      .updateEntity(false)
      .execute();
    return (inserted.raw as unknown[]).length > 0;
  }

  /** Of these people, the ones linked to an account of `issuer` (a subject, not a pending link). */
  async linkedAmong(issuer: string, userIds: readonly string[], em?: EntityManager): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.repo(em).find({ where: { issuer, userId: In([...userIds]), subject: Not(IsNull()) }, select: { id: true, userId: true } });
    return new Set(rows.map((r) => r.userId));
  }

  /** A pending link: the account is linked at its first SSO sign-in through `issuer`. */
  async addPending(userId: string, issuer: string, em: EntityManager): Promise<void> {
    await this.repo(em).createQueryBuilder().insert().values({ userId, issuer, subject: null }).orIgnore().execute();
  }
}
