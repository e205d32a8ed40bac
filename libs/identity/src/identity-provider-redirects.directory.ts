import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { IdentityProviderRedirect } from './entities';

/** The table `identity_provider_redirects`: the only place that queries it. */
@Injectable()
export class IdentityProviderRedirectDirectory {
  constructor(private readonly dataSource: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(IdentityProviderRedirect);
  }

  /**
   * The organisation's callback id, made on first use: an insert that does nothing when another
   * request made it first, then the stored one (every caller sees the same id).
   */
  async idFor(organizationId: string, em?: EntityManager): Promise<string> {
    const found = await this.repo(em).findOne({ where: { organizationId } });
    if (found) return found.callbackId;
    await this.repo(em)
      .createQueryBuilder()
      .insert()
      .values({ organizationId, callbackId: randomBytes(16).toString('base64url') })
      .orIgnore()
      .execute();
    return (await this.repo(em).findOneOrFail({ where: { organizationId } })).callbackId;
  }

  /** The organisation a callback id belongs to, or null. */
  async organizationOf(callbackId: string): Promise<string | null> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(callbackId)) return null;
    return (await this.repo().findOne({ where: { callbackId } }))?.organizationId ?? null;
  }
}
