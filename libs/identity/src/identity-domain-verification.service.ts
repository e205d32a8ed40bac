import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { ConflictError } from '@app/common';
import { isPgError, PG_UNIQUE_VIOLATION } from '@app/database';
import { DomainTxtLookup } from './domain-txt-resolver';
import { normalizeEmailDomain, VERIFICATION_PREFIX, verificationRecord } from './email-domains';
import { IdentityProviderError } from './identity.errors';
import { IdentityProviderDirectory } from './identity-provider.directory';
import { domainView, type ClaimedDomainView } from './identity-provider-view';

/** Who verified a domain: an admin through DNS, or the operator's command line. */
export type VerificationMethod = 'dns' | 'operator';

const err = (code: string, message: string) => new IdentityProviderError(code, message);

/**
 * Verification of an organisation's claimed email domains: through DNS (a TXT record the admin
 * publishes) or by the operator's command line. Only verified domains route sign-in.
 */
@Injectable()
export class IdentityDomainVerification {
  constructor(
    private readonly dataSource: DataSource,
    private readonly directory: IdentityProviderDirectory,
    private readonly txt: DomainTxtLookup,
    private readonly audit: AuditService,
  ) {}

  /**
   * Verifies a claimed domain through DNS: a TXT record `agent-gateway-verification=<token>` at
   * `_agent-gateway.<domain>` (or at the domain itself). Already verified: answered as it is.
   */
  async verifyDomain(organizationId: string, rawDomain: string, actor: AuditActor): Promise<ClaimedDomainView> {
    const domain = normalizeEmailDomain(rawDomain);
    const claim = await this.directory.findDomain(organizationId, domain);
    if (!claim) throw notClaimed(domain);
    if (claim.verifiedAt) return domainView(claim);
    const record = verificationRecord(domain, claim.verificationToken);
    const expected = `${VERIFICATION_PREFIX}${claim.verificationToken}`;
    let found = false;
    for (const name of [record.name, domain]) {
      let values: string[];
      try {
        values = await this.txt.txt(name);
      } catch (error) {
        const code = (error as { code?: string }).code ?? 'an error';
        throw err('dns_lookup_failed', `The DNS look-up of ${name} failed (${code}); try again in a few minutes. ${operatorVerification(organizationId, domain)}`);
      }
      if (values.some((v) => v.trim() === expected)) {
        found = true;
        break;
      }
    }
    if (!found) {
      throw err(
        'domain_not_verified',
        `No TXT record "${record.value}" was found at ${record.name} (nor at ${domain}). Publish it there; DNS changes can take a while to be seen. ${operatorVerification(organizationId, domain)}`,
      );
    }
    return this.markVerified(organizationId, domain, 'dns', actor);
  }

  /**
   * Verifies a claimed domain without DNS: the operator's command line (whoever runs it controls
   * the deployment). Already verified: answered as it is.
   */
  async verifyDomainAsOperator(organizationId: string, rawDomain: string, actor: AuditActor): Promise<ClaimedDomainView> {
    const domain = normalizeEmailDomain(rawDomain);
    const claim = await this.directory.findDomain(organizationId, domain);
    if (!claim) throw notClaimed(domain);
    if (claim.verifiedAt) return domainView(claim);
    return this.markVerified(organizationId, domain, 'operator', actor);
  }

  private async markVerified(organizationId: string, domain: string, method: VerificationMethod, actor: AuditActor): Promise<ClaimedDomainView> {
    try {
      return await this.dataSource.transaction(async (em) => {
        const verifiedAt = await this.directory.markVerified(organizationId, domain, em);
        const claim = await this.directory.findDomain(organizationId, domain, em);
        if (!claim) throw notClaimed(domain);
        if (verifiedAt) {
          await this.audit.record(em, {
            organizationId,
            ...actor,
            action: 'identity_provider.domain_verified',
            targetType: 'identity_provider_domain',
            targetId: domain,
            metadata: { domain, method },
          });
        }
        return domainView(claim);
      });
    } catch (error) {
      if (isPgError(error, PG_UNIQUE_VIOLATION)) throw claimedElsewhere(domain);
      throw error;
    }
  }
}

function notClaimed(domain: string) {
  return new IdentityProviderError('domain_not_claimed', `${domain} is not among this organisation's email domains: add it to emailDomains first`, 'not_found');
}

function claimedElsewhere(domain: string) {
  return new ConflictError('domain_claimed', `${domain} is verified by another organisation`);
}

/** The way around DNS, for a failed verification's message: the operator's command (docs/sso.md). */
function operatorVerification(organizationId: string, domain: string): string {
  return `Where DNS cannot be changed, an operator of this deployment can verify it: npm run cli -- verify-domain --organization ${organizationId} --domain ${domain}`;
}
