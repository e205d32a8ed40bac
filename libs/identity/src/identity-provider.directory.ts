import { Injectable } from '@nestjs/common';
import { AppConfig, decryptSecret, encryptSecret, type SecretPlace, type StoredSecret } from '@app/config';
import { queryAffected, queryReturning } from '@app/database';
import { DataSource, EntityManager, In, IsNull, Not } from 'typeorm';
import { normalizeEmail, UserDirectory } from '@app/tenancy';
import { IdentityProviderDomain, IdentityProviderRecord, ProvisionedUser } from './entities';

/** What the access rule of a session needs to know about an organisation's IdP. */
export interface SignInRule {
  issuer: string;
  requireSso: boolean;
}

/**
 * Whether the organisation that made the client accepts an ID-JAG of this issuer (and tenant)
 * (SPEC §10, "ID-JAG routing"): `accepted` names its IdP settings; otherwise why not.
 */
export type IdJagAcceptance =
  | { kind: 'accepted'; provider: IdentityProviderRecord }
  /** The organisation has no identity provider, or its issuer is another. */
  | { kind: 'other_issuer' }
  /** A multi-tenant issuer: the ID-JAG carries no tenant claim, or the organisation has no tenant recorded. */
  | { kind: 'tenant_required' }
  /** The ID-JAG's tenant is not the one recorded for the organisation. */
  | { kind: 'other_tenant' }
  /** The organisation's IdP is this issuer, but ID-JAGs are switched off there. */
  | { kind: 'not_accepting' }
  /** ID-JAGs are switched on, but no admin of the organisation signed in through the IdP yet. */
  | { kind: 'no_admin_sign_in' };

/**
 * Issuers that stand for many tenants (the shipped list of SPEC §10): an ID-JAG of one of them is
 * accepted only with its tenant claim (`hd` for Google, `tid` for Microsoft Entra) equal to the
 * tenant recorded at the organisation's admin sign-in.
 */
export const MULTI_TENANT_ISSUERS: readonly string[] = [
  'https://accounts.google.com',
  'https://login.microsoftonline.com/common/v2.0',
  'https://login.microsoftonline.com/organizations/v2.0',
];

/** A person as a check of theirs names them: by account id where one exists, else by email. */
export type PersonRef = { userId: string } | { email: string };

/**
 * The tables `identity_providers` and `identity_provider_domains`: the only place that queries
 * them. Methods that run in a caller's transaction take its `EntityManager`.
 */
@Injectable()
export class IdentityProviderDirectory {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly users: UserDirectory,
  ) {}

  private providers(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(IdentityProviderRecord);
  }

  private domainRepo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(IdentityProviderDomain);
  }

  /** The organisation's IdP settings, without the client secret; null when none is connected. */
  find(organizationId: string, em?: EntityManager): Promise<IdentityProviderRecord | null> {
    return this.providers(em).findOne({ where: { organizationId } });
  }

  /** The client secret, for the code exchange only: stored encrypted (SPEC §10, "Stored outbound secrets"), decrypted here. */
  async clientSecretOf(organizationId: string): Promise<string | null> {
    const row = await this.providers()
      .createQueryBuilder('p')
      .select('p.organizationId')
      .addSelect('p.clientSecret')
      .where('p.organizationId = :organizationId', { organizationId })
      .getOne();
    return row ? decryptSecret(this.config.secretsKeys, row.clientSecret, clientSecretPlace(organizationId)) : null;
  }

  /** Every stored client secret as it is stored, for the start-up check and `secrets-rotate`. */
  async storedClientSecrets(): Promise<StoredSecret[]> {
    const rows: { organization_id: string; client_secret: string }[] = await this.dataSource.query(`SELECT organization_id, client_secret FROM identity_providers`);
    return rows.map((r) => ({ place: clientSecretPlace(r.organization_id), stored: r.client_secret }));
  }

  /** Replaces one stored client secret, only if it is still `was` (another instance may have done it first). */
  replaceStoredClientSecret(organizationId: string, was: string, stored: string): Promise<number> {
    return queryAffected(this.dataSource, `UPDATE identity_providers SET client_secret = $3 WHERE organization_id = $1 AND client_secret = $2`, [organizationId, was, stored]);
  }

  /** Every organisation whose IdP has this issuer. */
  byIssuer(issuer: string, em?: EntityManager): Promise<IdentityProviderRecord[]> {
    return this.providers(em).find({ where: { issuer } });
  }

  /**
   * Whether the organisation (the one that made the authenticated client) accepts an ID-JAG of
   * `issuer` with this `tenant` claim: its IdP must be that issuer, with the recorded tenant when
   * one is recorded (always, for a multi-tenant issuer), `acceptIdJag` on and an admin sign-in.
   * Several organisations may accept one issuer: the client tells them apart.
   */
  async idJagAcceptor(organizationId: string, issuer: string, tenant: string | undefined, em?: EntityManager): Promise<IdJagAcceptance> {
    const provider = await this.find(organizationId, em);
    if (!provider || provider.issuer !== issuer) return { kind: 'other_issuer' };
    if (MULTI_TENANT_ISSUERS.includes(issuer) && (!provider.tenant || tenant === undefined)) return { kind: 'tenant_required' };
    if (provider.tenant && tenant !== provider.tenant) return { kind: 'other_tenant' };
    if (!provider.acceptIdJag) return { kind: 'not_accepting' };
    if (!provider.adminSignedInAt) return { kind: 'no_admin_sign_in' };
    return { kind: 'accepted', provider };
  }

  /** Takes a deleted organisation client out of the organisation's `idJagClients`, in `em`'s transaction. */
  async forgetIdJagClient(organizationId: string, clientId: string, em: EntityManager): Promise<void> {
    await em.query(
      `UPDATE identity_providers
          SET id_jag_clients = COALESCE((SELECT jsonb_agg(c) FROM jsonb_array_elements(id_jag_clients) c WHERE c->>'clientId' <> $2), '[]'::jsonb)
        WHERE organization_id = $1 AND id_jag_clients @> jsonb_build_array(jsonb_build_object('clientId', $2::text))`,
      [organizationId, clientId],
    );
  }

  /**
   * Whether the organisation's SCIM client deprovisioned the person (`active = false`, deleted
   * ones too): the one check of every way in (password sign-up by invitation, invitation claim,
   * single sign-on, ID-JAG). The person is named by their account id where one exists, else by
   * email; the account behind either is looked up here, once, and a SCIM row counts when it names
   * the account or its email (a row still waiting for the account's link has only the email).
   */
  async isDeprovisioned(organizationId: string, person: PersonRef, em?: EntityManager): Promise<boolean> {
    const account = 'userId' in person ? await this.users.findById(person.userId, em) : null;
    const userId = 'userId' in person ? person.userId : await this.users.idByEmail(person.email, em);
    const email = 'email' in person ? normalizeEmail(person.email) : account ? normalizeEmail(account.email) : null;
    const where = [...(userId ? [{ organizationId, userId, active: false }] : []), ...(email ? [{ organizationId, userName: email, active: false }] : [])];
    if (where.length === 0) return false;
    return (em ?? this.dataSource.manager).getRepository(ProvisionedUser).exists({ where });
  }

  /** The organisation's sign-in rule for sessions (null: no IdP connected). */
  async signInRule(organizationId: string, em?: EntityManager): Promise<SignInRule | null> {
    const row = await this.providers(em).findOne({ where: { organizationId }, select: { issuer: true, requireSso: true } });
    return row ? { issuer: row.issuer, requireSso: row.requireSso } : null;
  }

  /** The sign-in rules of several organisations in one query (an organisation without an IdP is absent). */
  async signInRules(organizationIds: readonly string[], em?: EntityManager): Promise<Map<string, SignInRule>> {
    if (organizationIds.length === 0) return new Map();
    const rows = await this.providers(em).find({
      where: { organizationId: In([...new Set(organizationIds)]) },
      select: { organizationId: true, issuer: true, requireSso: true },
    });
    return new Map(rows.map((r) => [r.organizationId, { issuer: r.issuer, requireSso: r.requireSso }]));
  }

  /** Creates or replaces the settings (a `clientSecret` of undefined keeps the stored one). */
  async save(input: Partial<IdentityProviderRecord> & { organizationId: string }, em: EntityManager): Promise<void> {
    const values =
      input.clientSecret === undefined
        ? input
        : { ...input, clientSecret: encryptSecret(this.config.secretsKeys, input.clientSecret, clientSecretPlace(input.organizationId)) };
    const existing = await this.providers(em).exists({ where: { organizationId: values.organizationId } });
    if (existing) {
      const { organizationId, ...rest } = values;
      await this.providers(em).update({ organizationId }, rest);
    } else {
      await this.providers(em).insert(values);
    }
  }

  async remove(organizationId: string, em: EntityManager): Promise<boolean> {
    const result = await this.providers(em).delete({ organizationId });
    await this.domainRepo(em).delete({ organizationId });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Records an admin's sign-in through the IdP: the first one sets `admin_signed_in_at` (what lets
   * it accept ID-JAGs), and the tenant the ID token named is kept when none is set yet (the
   * `tenant` ID-JAGs of a multi-tenant issuer are matched against).
   */
  async recordAdminSignIn(organizationId: string, issuer: string, tenant: string | null = null): Promise<void> {
    await this.providers()
      .createQueryBuilder()
      .update()
      .set({ adminSignedInAt: () => 'COALESCE(admin_signed_in_at, now())', tenant: () => 'COALESCE(tenant, :tenant)' })
      .where('organization_id = :organizationId AND issuer = :issuer AND (admin_signed_in_at IS NULL OR (tenant IS NULL AND :tenant::text IS NOT NULL))', {
        organizationId,
        issuer,
        tenant,
      })
      .execute();
  }

  /**
   * Records that the IdP sent an ID token that passed the checks: when, and its claim names
   * (at most 100, each at most 100 characters; never the values). Only while `issuer` is still
   * the organisation's IdP.
   */
  async recordIdToken(organizationId: string, issuer: string, claimNames: readonly string[]): Promise<void> {
    const names = claimNames.filter((n) => n.length > 0 && n.length <= 100).slice(0, 100);
    // Plain SQL: a sign-in is no change of the settings, so `updated_at` stays.
    await this.dataSource.query(
      'UPDATE identity_providers SET last_id_token_at = now(), last_id_token_claims = $3::jsonb WHERE organization_id = $1 AND issuer = $2',
      [organizationId, issuer, JSON.stringify(names)],
    );
  }

  domains(organizationId: string, em?: EntityManager): Promise<IdentityProviderDomain[]> {
    return this.domainRepo(em).find({ where: { organizationId }, order: { domain: 'ASC' } });
  }

  /** The organisation's settings row, locked for the rest of `em`'s transaction (null when none). */
  findForUpdate(organizationId: string, em: EntityManager): Promise<IdentityProviderRecord | null> {
    return this.providers(em).findOne({ where: { organizationId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Of these domains, the ones another organisation has verified. */
  async verifiedElsewhere(organizationId: string, domains: readonly string[], em?: EntityManager): Promise<string[]> {
    if (domains.length === 0) return [];
    const rows = await this.domainRepo(em).find({
      where: { domain: In([...domains]), organizationId: Not(organizationId), verifiedAt: Not(IsNull()) },
      select: { domain: true },
    });
    return rows.map((r) => r.domain);
  }

  /**
   * Makes the organisation's claimed domains exactly `domains`: claims of domains no longer
   * listed are deleted, new ones added pending with `tokenFor(domain)`; kept ones keep their
   * token and state. Answers what was added and removed.
   */
  async replaceDomains(
    organizationId: string,
    domains: readonly string[],
    tokenFor: (domain: string) => string,
    em: EntityManager,
  ): Promise<{ added: string[]; removed: string[] }> {
    const current = new Set((await this.domains(organizationId, em)).map((d) => d.domain));
    const wanted = new Set(domains);
    const removed = [...current].filter((d) => !wanted.has(d));
    const added = [...wanted].filter((d) => !current.has(d));
    if (removed.length) await this.domainRepo(em).delete({ organizationId, domain: In(removed) });
    if (added.length) {
      await this.domainRepo(em).insert(added.map((domain) => ({ organizationId, domain, verificationToken: tokenFor(domain), verifiedAt: null })));
    }
    return { added, removed };
  }

  /** One claimed domain of the organisation, or null. */
  findDomain(organizationId: string, domain: string, em?: EntityManager): Promise<IdentityProviderDomain | null> {
    return this.domainRepo(em).findOne({ where: { organizationId, domain } });
  }

  /**
   * Marks a pending claim verified (a conditional update: of two organisations verifying the same
   * domain at once, the unique index lets one through and refuses the other with a unique
   * violation, which the caller answers). Null when the claim was not pending (absent or already verified).
   */
  async markVerified(organizationId: string, domain: string, em: EntityManager): Promise<Date | null> {
    const [row] = await queryReturning<{ verified_at: Date | string }>(
      em,
      'UPDATE identity_provider_domains SET verified_at = now() WHERE organization_id = $1 AND domain = $2 AND verified_at IS NULL RETURNING verified_at',
      [organizationId, domain],
    );
    return row ? new Date(row.verified_at) : null;
  }
}

/** Where an IdP's client secret is stored, the additional data of its encryption. */
function clientSecretPlace(organizationId: string): SecretPlace {
  return { table: 'identity_providers', column: 'client_secret', rowId: organizationId };
}
