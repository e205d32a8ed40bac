import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { emailDomain } from './email-domains';
import { IdentityProviderDomain, IdentityProviderRecord } from './entities';

/** Where an email signs in through single sign-on: the organisation that verified its domain, and its IdP. */
export interface SsoRoute {
  organizationId: string;
  issuer: string;
}

/**
 * What single sign-on asks of identity's tables before it lets someone in: which organisation an
 * email belongs to (a verified domain of an organisation with an IdP; pending domains count for
 * nothing). Whether its SCIM client deprovisioned the person is `IdentityProviderDirectory.isDeprovisioned`.
 */
@Injectable()
export class SsoRouting {
  constructor(private readonly dataSource: DataSource) {}

  /** The organisation whose verified domain the email has, when that organisation has an IdP; else null. */
  async routeFor(email: string, em?: EntityManager): Promise<SsoRoute | null> {
    const domain = emailDomain(email);
    if (!domain) return null;
    const row = await (em ?? this.dataSource.manager)
      .createQueryBuilder(IdentityProviderDomain, 'd')
      .innerJoin(IdentityProviderRecord, 'p', 'p.organization_id = d.organization_id')
      .select('d.organization_id', 'organizationId')
      .addSelect('p.issuer', 'issuer')
      .where('d.domain = :domain AND d.verified_at IS NOT NULL', { domain })
      .getRawOne<SsoRoute>();
    return row ?? null;
  }
}
