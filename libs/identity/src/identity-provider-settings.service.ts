import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { CredentialRevoker } from '@app/credential-store';
import { ConflictError, NotFoundError } from '@app/common';
import { isPgError, PG_UNIQUE_VIOLATION } from '@app/database';
import { ProjectDirectory } from '@app/tenancy';
import { isPublicEmailDomain } from './email-domains';
import type { IdentityProviderRecord, IdJagClient } from './entities';
import { checkIdJagClientsOwned, idJagAccessKept, OrganizationClientOwnership } from './id-jag-access';
import { IdentityProviderError } from './identity.errors';
import { IdentityProviderDirectory } from './identity-provider.directory';
import { IdentityDomainVerification } from './identity-domain-verification.service';
import { checkedDiscovery } from './identity-provider-discovery';
import { normaliseIdentityProvider, type IdentityProviderInput, type NormalisedIdentityProvider } from './identity-provider-input';
import { identityProviderView, type ClaimedDomainView, type DiscoverySummary, type IdentityProviderView } from './identity-provider-view';
import { IdpMetadata } from './idp-metadata.service';
import { SsoRedirectUris } from './sso-redirect-uris.service';
import { LockoutConfirmationRequiredError, RequireSsoLockout, type LockedOutMember } from './require-sso-lockout';

const err = (code: string, message: string) => new IdentityProviderError(code, message);

/**
 * An organisation's identity-provider settings: the one service the REST routes, the dashboard
 * page and the command line call. Saving fetches the issuer's discovery document and key set
 * afresh and refuses settings the sign-in could not use; every change and its audit event are
 * written in one transaction; the client secret is write-only (never returned, logged, audited
 * or echoed in an error).
 */
@Injectable()
export class IdentityProviderSettings {
  constructor(
    private readonly dataSource: DataSource,
    private readonly directory: IdentityProviderDirectory,
    private readonly metadata: IdpMetadata,
    private readonly projects: ProjectDirectory,
    private readonly audit: AuditService,
    private readonly redirectUris: SsoRedirectUris,
    private readonly verification: IdentityDomainVerification,
    private readonly lockout: RequireSsoLockout,
    private readonly revoker: CredentialRevoker,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** The organisation's settings, or null when it has no identity provider. */
  async get(organizationId: string): Promise<IdentityProviderView | null> {
    const record = await this.directory.find(organizationId);
    if (!record) return null;
    return identityProviderView(record, await this.directory.domains(organizationId), await this.redirectUris.uriFor(organizationId));
  }

  /**
   * Connects or replaces the organisation's identity provider (the whole settings). Refusals:
   * 400 with a code naming the field or the IdP's problem (`invalid_issuer`,
   * `identity_provider_unreachable`, `invalid_discovery`, `discovery_issuer_mismatch`,
   * `pkce_s256_unsupported`, `invalid_jwks`, `invalid_email_domain`, `public_email_domain`,
   * `invalid_default_role`, `invalid_role_mappings`, `invalid_id_jag_clients`,
   * `client_secret_required`, …); 409 `domain_claimed` (a domain another organisation verified)
   * and `id_jag_needs_admin_sign_in`.
   */
  async put(organizationId: string, input: IdentityProviderInput, actor: AuditActor): Promise<IdentityProviderView> {
    const wanted = normaliseIdentityProvider(input);
    for (const domain of wanted.emailDomains) {
      if (isPublicEmailDomain(domain)) {
        throw err('public_email_domain', `${domain} is a public mail service's domain: anyone can have an address there, so it cannot be claimed`);
      }
    }
    const existing = await this.directory.find(organizationId);
    const issuerChanged = !existing || existing.issuer !== wanted.issuer;
    if (wanted.clientSecret === undefined && issuerChanged) {
      throw err(
        'client_secret_required',
        existing ? 'clientSecret is required when the issuer changes' : 'clientSecret is required when connecting an identity provider',
      );
    }
    this.checkIdJag(wanted, existing, issuerChanged);
    const discovery = await checkedDiscovery(this.metadata, wanted.issuer);

    try {
      return await this.save(organizationId, wanted, discovery, actor);
    } catch (error) {
      // Two first saves of the same organisation at once: the primary key lets one through.
      if (isPgError(error, PG_UNIQUE_VIOLATION)) {
        throw new ConflictError('identity_provider_changed', 'The identity-provider settings were changed at the same time: load them again and retry');
      }
      throw error;
    }
  }

  private save(organizationId: string, wanted: NormalisedIdentityProvider, discovery: DiscoverySummary, actor: AuditActor): Promise<IdentityProviderView> {
    return this.dataSource.transaction(async (em) => {
      const locked = await this.directory.findForUpdate(organizationId, em);
      const changedIssuer = !locked || locked.issuer !== wanted.issuer;
      // The settings may have changed while the IdP was being asked: judge again on the locked row.
      this.checkIdJag(wanted, locked, changedIssuer);
      if (wanted.clientSecret === undefined && changedIssuer) {
        throw err('client_secret_required', 'clientSecret is required when connecting an identity provider');
      }
      await this.checkProjects(organizationId, wanted.idJagClients, em);
      await checkIdJagClientsOwned(this.moduleRef.get(OrganizationClientOwnership, { strict: false }), organizationId, wanted.idJagClients, em);
      const taken = await this.directory.verifiedElsewhere(organizationId, wanted.emailDomains, em);
      if (taken.length) {
        throw new ConflictError('domain_claimed', `${taken.join(', ')} ${taken.length === 1 ? 'is' : 'are'} verified by another organisation`);
      }
      await this.directory.save(
        {
          organizationId,
          issuer: wanted.issuer,
          clientId: wanted.clientId,
          ...(wanted.clientSecret !== undefined ? { clientSecret: wanted.clientSecret } : {}),
          defaultRole: wanted.defaultRole,
          groupsClaim: wanted.groupsClaim,
          scopes: wanted.scopes,
          roleMappings: wanted.roleMappings,
          requireSso: wanted.requireSso,
          acceptIdJag: wanted.acceptIdJag,
          idJagClients: wanted.idJagClients,
          discovery: discovery as unknown as IdentityProviderRecord['discovery'],
          ...(changedIssuer ? { adminSignedInAt: null, tenant: null } : {}),
          // The last ID token says nothing about what another issuer, or other scopes, will send.
          ...(!locked || changedIssuer || !sameList(locked.scopes, wanted.scopes) ? { lastIdTokenAt: null, lastIdTokenClaims: null } : {}),
        },
        em,
      );
      const verifiedBefore = (await this.directory.domains(organizationId, em)).filter((d) => d.verifiedAt).map((d) => d.domain);
      const { added, removed } = await this.directory.replaceDomains(organizationId, wanted.emailDomains, () => newToken(), em);
      // Turning it on (or moving it to another issuer, or dropping a verified domain) may lock people out: confirmed, or refused.
      const requireSsoWidened = wanted.requireSso && (!locked || !locked.requireSso || changedIssuer || removed.some((d) => verifiedBefore.includes(d)));
      const lockedOut = requireSsoWidened ? await this.lockedOut(organizationId, wanted.issuer, em) : [];
      if (lockedOut.length && !wanted.confirmLockout) throw new LockoutConfirmationRequiredError(lockedOut);
      await this.revoker.revokeIdJagAccess(em, organizationId, idJagAccessKept(wanted), actor);
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'identity_provider.updated',
        targetType: 'identity_provider',
        targetId: organizationId,
        metadata: {
          created: !locked,
          issuer: wanted.issuer,
          ...(locked && changedIssuer ? { previousIssuer: locked.issuer } : {}),
          clientId: wanted.clientId,
          clientSecretChanged: wanted.clientSecret !== undefined,
          emailDomains: wanted.emailDomains,
          domainsAdded: added,
          domainsRemoved: removed,
          defaultRole: wanted.defaultRole,
          groupsClaim: wanted.groupsClaim,
          scopes: wanted.scopes,
          roleMappings: wanted.roleMappings,
          requireSso: wanted.requireSso,
          ...(lockedOut.length ? { lockoutConfirmed: lockedOut.slice(0, 100).map((p) => p.email), lockedOutCount: lockedOut.length } : {}),
          acceptIdJag: wanted.acceptIdJag,
          idJagClients: wanted.idJagClients,
        },
      });
      const saved = (await this.directory.find(organizationId, em))!;
      return identityProviderView(saved, await this.directory.domains(organizationId, em), await this.redirectUris.uriFor(organizationId, em));
    });
  }

  /** Disconnects the organisation's identity provider and deletes its domain claims. 404 when none. */
  async remove(organizationId: string, actor: AuditActor): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const locked = await this.directory.findForUpdate(organizationId, em);
      if (!locked) throw new NotFoundError('Identity provider');
      const domains = (await this.directory.domains(organizationId, em)).map((d) => d.domain);
      await this.directory.remove(organizationId, em);
      await this.revoker.revokeIdJagAccess(em, organizationId, idJagAccessKept(null), actor);
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'identity_provider.removed',
        targetType: 'identity_provider',
        targetId: organizationId,
        metadata: { issuer: locked.issuer, clientId: locked.clientId, domainsRemoved: domains },
      });
    });
  }

  /**
   * Turns "require single sign-on" off without touching the other settings: the operator's way
   * back in when the identity provider is broken and no admin has a session that opens the
   * organisation (a password session opens nothing there while it is on). Audited as
   * `identity_provider.updated` with `requireSso: false` and `previousRequireSso`. Returns whether
   * it was on; 404 when the organisation has no identity provider.
   */
  async turnOffRequireSso(organizationId: string, actor: AuditActor): Promise<{ issuer: string; wasOn: boolean }> {
    return this.dataSource.transaction(async (em) => {
      const locked = await this.directory.findForUpdate(organizationId, em);
      if (!locked) throw new NotFoundError('Identity provider');
      if (!locked.requireSso) return { issuer: locked.issuer, wasOn: false };
      await this.directory.save({ organizationId, requireSso: false }, em);
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'identity_provider.updated',
        targetType: 'identity_provider',
        targetId: organizationId,
        metadata: { created: false, issuer: locked.issuer, clientId: locked.clientId, requireSso: false, previousRequireSso: true },
      });
      return { issuer: locked.issuer, wasOn: true };
    });
  }

  /**
   * Verifies a claimed domain through DNS: a TXT record `agent-gateway-verification=<token>` at
   * `_agent-gateway.<domain>` (or at the domain itself). Already verified: answered as it is.
   */
  verifyDomain(organizationId: string, rawDomain: string, actor: AuditActor): Promise<ClaimedDomainView> {
    return this.verification.verifyDomain(organizationId, rawDomain, actor);
  }

  /**
   * Verifies a claimed domain without DNS: the operator's command line (whoever runs it controls
   * the deployment). Already verified: answered as it is.
   */
  verifyDomainAsOperator(organizationId: string, rawDomain: string, actor: AuditActor): Promise<ClaimedDomainView> {
    return this.verification.verifyDomainAsOperator(organizationId, rawDomain, actor);
  }

  private checkIdJag(wanted: NormalisedIdentityProvider, current: IdentityProviderRecord | null, issuerChanged: boolean): void {
    if (!wanted.acceptIdJag) return;
    if (!current || issuerChanged || !current.adminSignedInAt) {
      throw new IdentityProviderError(
        'id_jag_needs_admin_sign_in',
        issuerChanged && current
          ? 'acceptIdJag can be switched on only after an admin of this organisation has signed in through the new issuer: save with acceptIdJag false, sign in with single sign-on once, then switch it on'
          : 'acceptIdJag can be switched on only after an admin of this organisation has signed in through this identity provider: save with acceptIdJag false, sign in with single sign-on once, then switch it on',
        'conflict',
      );
    }
  }

  private async lockedOut(organizationId: string, issuer: string, em: EntityManager): Promise<LockedOutMember[]> {
    const verified = (await this.directory.domains(organizationId, em)).filter((d) => d.verifiedAt).map((d) => d.domain);
    return this.lockout.lockedOut(organizationId, issuer, verified, em);
  }

  private async checkProjects(organizationId: string, clients: IdJagClient[], em: EntityManager): Promise<void> {
    for (const [index, client] of clients.entries()) {
      if (client.projectId === null) continue;
      if (!(await this.projects.find(organizationId, client.projectId, em))) {
        throw err('invalid_id_jag_clients', `idJagClients[${index}].projectId is not a project of this organisation`);
      }
    }
  }
}

function newToken(): string {
  return randomBytes(18).toString('base64url');
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
