import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { CredentialRevoker } from '@app/credential-store';
import { ConflictError, NotFoundError } from '@app/common';
import { isPgError, PG_UNIQUE_VIOLATION } from '@app/database';
import { MEMBERSHIP_ROLES, ProjectDirectory } from '@app/tenancy';
import { DomainTxtLookup } from './domain-txt-resolver';
import { checkIdJagClientsOwned, idJagAccessKept, OrganizationClientOwnership } from './id-jag-access';
import { isPublicEmailDomain, normalizeEmailDomain, VERIFICATION_PREFIX, verificationRecord, type VerificationRecord } from './email-domains';
import type { IdentityProviderDomain, IdentityProviderRecord, IdJagClient, RoleMapping } from './entities';
import { IdentityProviderError } from './identity.errors';
import { IdentityProviderDirectory } from './identity-provider.directory';
import { IdpMetadata, type IdpDiscovery } from './idp-metadata.service';
import { SsoRedirectUris } from './sso-redirect-uris.service';

/** Bounds on what one organisation's settings may hold. */
export const IDENTITY_PROVIDER_LIMITS = {
  emailDomains: 50,
  roleMappings: 100,
  idJagClients: 100,
  text: 500,
  clientSecret: 2000,
} as const;

/**
 * What an admin sends (REST `PUT`, the dashboard form): the whole settings, replacing what was
 * stored. `clientSecret` is required when connecting and optional afterwards (absent: the stored
 * one is kept). Types are checked here too, so every caller gets the same refusals.
 */
export interface IdentityProviderInput {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  emailDomains?: string[];
  defaultRole?: string;
  groupsClaim?: string | null;
  roleMappings?: { group: string; role: string }[];
  requireSso?: boolean;
  acceptIdJag?: boolean;
  idJagClients?: { clientId: string; projectId: string | null }[];
}

/** A claimed email domain: pending until verified; only verified domains count. */
export interface ClaimedDomainView {
  domain: string;
  status: 'pending' | 'verified';
  verifiedAt: Date | null;
  /** The DNS record that verifies it: publish it, then ask for verification. */
  txtRecord: VerificationRecord;
}

/** What the issuer's discovery document and key set said when the settings were saved. */
export interface DiscoverySummary {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  userinfoEndpoint: string | null;
  endSessionEndpoint: string | null;
  codeChallengeMethods: string[];
  /** False when the document does not list `code_challenge_methods_supported` (sign-in sends S256 anyway). */
  pkceAdvertised: boolean;
  signingAlgorithms: string[];
  tokenEndpointAuthMethods: string[];
  signingKeys: number;
  fetchedAt: string;
}

/** The settings as shown (REST `GET`, the dashboard page). The client secret never appears. */
export interface IdentityProviderView {
  organizationId: string;
  issuer: string;
  clientId: string;
  /** Always true once connected: the secret is stored, never shown. */
  clientSecretSet: boolean;
  /** What to register at the IdP as the redirect (callback) URI: this organisation's own (SPEC §10). */
  redirectUri: string;
  /**
   * Connected before per-IdP redirect URIs: the shared `{BASE_URL}/auth/sso/callback` is still
   * accepted for it until an admin confirms the new URI is registered.
   */
  legacyRedirectUri: boolean;
  emailDomains: string[];
  domains: ClaimedDomainView[];
  defaultRole: 'member';
  groupsClaim: string | null;
  roleMappings: RoleMapping[];
  requireSso: boolean;
  acceptIdJag: boolean;
  idJagClients: IdJagClient[];
  /** When an admin of the organisation first signed in through this IdP (ID-JAG acceptance needs it). */
  adminSignedInAt: Date | null;
  /** The IdP tenant named by an admin's ID token (`tenant` or `tid`), recorded at that sign-in; read-only. */
  tenant: string | null;
  discovery: DiscoverySummary | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Who verified a domain: an admin through DNS, or the operator's command line. */
export type VerificationMethod = 'dns' | 'operator';

interface Normalised {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  emailDomains: string[];
  defaultRole: 'member';
  groupsClaim: string | null;
  roleMappings: RoleMapping[];
  requireSso: boolean;
  acceptIdJag: boolean;
  idJagClients: IdJagClient[];
}

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
    private readonly txt: DomainTxtLookup,
    private readonly audit: AuditService,
    private readonly redirectUris: SsoRedirectUris,
    private readonly revoker: CredentialRevoker,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** The organisation's settings, or null when it has no identity provider. */
  async get(organizationId: string): Promise<IdentityProviderView | null> {
    const record = await this.directory.find(organizationId);
    if (!record) return null;
    return this.view(record, await this.directory.domains(organizationId), await this.redirectUris.uriFor(organizationId));
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
    const wanted = normalise(input);
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
    const discovery = await this.fetchAndCheck(wanted.issuer);

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

  private save(organizationId: string, wanted: Normalised, discovery: DiscoverySummary, actor: AuditActor): Promise<IdentityProviderView> {
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
          roleMappings: wanted.roleMappings,
          requireSso: wanted.requireSso,
          acceptIdJag: wanted.acceptIdJag,
          idJagClients: wanted.idJagClients,
          discovery: discovery as unknown as IdentityProviderRecord['discovery'],
          ...(changedIssuer ? { adminSignedInAt: null, tenant: null } : {}),
        },
        em,
      );
      const { added, removed } = await this.directory.replaceDomains(organizationId, wanted.emailDomains, () => newToken(), em);
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
          roleMappings: wanted.roleMappings,
          requireSso: wanted.requireSso,
          acceptIdJag: wanted.acceptIdJag,
          idJagClients: wanted.idJagClients,
        },
      });
      const saved = (await this.directory.find(organizationId, em))!;
      return this.view(saved, await this.directory.domains(organizationId, em), await this.redirectUris.uriFor(organizationId, em));
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

  private checkIdJag(wanted: Normalised, current: IdentityProviderRecord | null, issuerChanged: boolean): void {
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

  private async checkProjects(organizationId: string, clients: IdJagClient[], em: EntityManager): Promise<void> {
    for (const [index, client] of clients.entries()) {
      if (client.projectId === null) continue;
      if (!(await this.projects.find(organizationId, client.projectId, em))) {
        throw err('invalid_id_jag_clients', `idJagClients[${index}].projectId is not a project of this organisation`);
      }
    }
  }

  /** The issuer's discovery document and key set, fetched afresh, checked for what sign-in needs. */
  private async fetchAndCheck(issuer: string): Promise<DiscoverySummary> {
    const doc: IdpDiscovery = await this.metadata.discovery(issuer, { fresh: true });
    const methods = doc.code_challenge_methods_supported;
    if (methods !== undefined && (!Array.isArray(methods) || !methods.includes('S256'))) {
      throw err(
        'pkce_s256_unsupported',
        `The identity provider does not support PKCE with S256 (its discovery document lists code_challenge_methods_supported ${JSON.stringify(methods).slice(0, 200)})`,
      );
    }
    const keys = await this.metadata.signingKeys(issuer, { fresh: true });
    if (keys.length === 0) {
      throw err('invalid_jwks', "The identity provider's key set (jwks_uri) holds no usable signing key (RSA, EC or OKP, for signatures)");
    }
    const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    return {
      issuer: doc.issuer,
      authorizationEndpoint: doc.authorization_endpoint,
      tokenEndpoint: doc.token_endpoint,
      jwksUri: doc.jwks_uri,
      userinfoEndpoint: text(doc.userinfo_endpoint),
      endSessionEndpoint: text(doc.end_session_endpoint),
      codeChallengeMethods: strings(methods),
      pkceAdvertised: methods !== undefined,
      signingAlgorithms: strings(doc.id_token_signing_alg_values_supported),
      tokenEndpointAuthMethods: strings(doc.token_endpoint_auth_methods_supported),
      signingKeys: keys.length,
      fetchedAt: new Date().toISOString(),
    };
  }

  private view(record: IdentityProviderRecord, domains: IdentityProviderDomain[], redirectUri: string): IdentityProviderView {
    return {
      organizationId: record.organizationId,
      issuer: record.issuer,
      clientId: record.clientId,
      clientSecretSet: true,
      redirectUri,
      legacyRedirectUri: record.legacyRedirectUri,
      emailDomains: domains.map((d) => d.domain),
      domains: domains.map(domainView),
      defaultRole: record.defaultRole,
      groupsClaim: record.groupsClaim,
      roleMappings: record.roleMappings,
      requireSso: record.requireSso,
      acceptIdJag: record.acceptIdJag,
      idJagClients: record.idJagClients,
      adminSignedInAt: record.adminSignedInAt,
      tenant: record.tenant,
      discovery: (record.discovery as unknown as DiscoverySummary | null) ?? null,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }
}

function domainView(d: IdentityProviderDomain): ClaimedDomainView {
  return {
    domain: d.domain,
    status: d.verifiedAt ? 'verified' : 'pending',
    verifiedAt: d.verifiedAt,
    txtRecord: verificationRecord(d.domain, d.verificationToken),
  };
}

function newToken(): string {
  return randomBytes(18).toString('base64url');
}

function notClaimed(domain: string) {
  return new IdentityProviderError('domain_not_claimed', `${domain} is not among this organisation's email domains: add it to emailDomains first`, 'not_found');
}

function claimedElsewhere(domain: string) {
  return new ConflictError('domain_claimed', `${domain} is verified by another organisation`);
}

/** Checks and normalises the input; the messages name the field and never echo the secret. */
function normalise(input: IdentityProviderInput): Normalised {
  if (!input || typeof input !== 'object') throw err('invalid_identity_provider', 'the settings must be a JSON object');
  const { text: maxText } = IDENTITY_PROVIDER_LIMITS;
  const requiredText = (value: unknown, field: string, max: number = maxText): string => {
    if (typeof value !== 'string' || value.trim() === '') throw err(`invalid_${snake(field)}`, `${field} is required (a non-empty string)`);
    if (value.length > max) throw err(`invalid_${snake(field)}`, `${field} must be at most ${max} characters`);
    return value.trim();
  };
  const flag = (value: unknown, field: string): boolean => {
    if (value === undefined) return false;
    if (typeof value !== 'boolean') throw err(`invalid_${snake(field)}`, `${field} must be true or false`);
    return value;
  };
  const list = <T>(value: unknown, field: string, max: number): T[] => {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw err(`invalid_${snake(field)}`, `${field} must be an array`);
    if (value.length > max) throw err(`invalid_${snake(field)}`, `${field} may hold at most ${max} entries`);
    return value as T[];
  };

  const issuer = requiredText(input.issuer, 'issuer');
  const clientId = requiredText(input.clientId, 'clientId');
  let clientSecret: string | undefined;
  if (input.clientSecret !== undefined) {
    if (typeof input.clientSecret !== 'string' || input.clientSecret === '') {
      throw err('invalid_client_secret', 'clientSecret must be a non-empty string (leave it out to keep the stored one)');
    }
    if (input.clientSecret.length > IDENTITY_PROVIDER_LIMITS.clientSecret) {
      throw err('invalid_client_secret', `clientSecret must be at most ${IDENTITY_PROVIDER_LIMITS.clientSecret} characters`);
    }
    clientSecret = input.clientSecret;
  }

  const emailDomains = [
    ...new Set(list<unknown>(input.emailDomains, 'emailDomains', IDENTITY_PROVIDER_LIMITS.emailDomains).map((d, i) => normalizeEmailDomain(d, `emailDomains[${i}]`))),
  ].sort();

  const defaultRole = input.defaultRole ?? 'member';
  if (defaultRole !== 'member') {
    throw err(
      'invalid_default_role',
      defaultRole === 'admin'
        ? 'defaultRole cannot be admin: give admin rights through roleMappings (groups) or in the members list'
        : 'defaultRole must be member',
    );
  }

  let groupsClaim: string | null = null;
  if (input.groupsClaim !== undefined && input.groupsClaim !== null && input.groupsClaim !== '') {
    groupsClaim = requiredText(input.groupsClaim, 'groupsClaim', 200);
  }
  const roleMappings: RoleMapping[] = list<{ group?: unknown; role?: unknown }>(input.roleMappings, 'roleMappings', IDENTITY_PROVIDER_LIMITS.roleMappings).map(
    (m, i) => {
      if (!m || typeof m !== 'object') throw err('invalid_role_mappings', `roleMappings[${i}] must be an object {group, role}`);
      if (typeof m.group !== 'string' || m.group.trim() === '' || m.group.length > maxText) {
        throw err('invalid_role_mappings', `roleMappings[${i}].group must be a non-empty string of at most ${maxText} characters`);
      }
      if (!(MEMBERSHIP_ROLES as readonly unknown[]).includes(m.role)) {
        throw err('invalid_role_mappings', `roleMappings[${i}].role must be one of: ${MEMBERSHIP_ROLES.join(', ')}`);
      }
      return { group: m.group.trim(), role: m.role as RoleMapping['role'] };
    },
  );
  if (roleMappings.length && !groupsClaim) throw err('invalid_role_mappings', 'roleMappings need groupsClaim: the ID token claim that lists the groups');
  const groups = new Set<string>();
  for (const [i, m] of roleMappings.entries()) {
    if (groups.has(m.group)) throw err('invalid_role_mappings', `roleMappings[${i}].group repeats the group ${JSON.stringify(m.group).slice(0, 100)}`);
    groups.add(m.group);
  }

  const idJagClients: IdJagClient[] = list<{ clientId?: unknown; projectId?: unknown }>(
    input.idJagClients,
    'idJagClients',
    IDENTITY_PROVIDER_LIMITS.idJagClients,
  ).map((c, i) => {
    if (!c || typeof c !== 'object') throw err('invalid_id_jag_clients', `idJagClients[${i}] must be an object {clientId, projectId}`);
    if (typeof c.clientId !== 'string' || c.clientId.trim() === '' || c.clientId.length > maxText) {
      throw err('invalid_id_jag_clients', `idJagClients[${i}].clientId must be a non-empty string of at most ${maxText} characters`);
    }
    const projectId = c.projectId ?? null;
    if (projectId !== null && typeof projectId !== 'string') {
      throw err('invalid_id_jag_clients', `idJagClients[${i}].projectId must be a project id or null`);
    }
    return { clientId: c.clientId.trim(), projectId };
  });
  const clientIds = new Set<string>();
  for (const [i, c] of idJagClients.entries()) {
    if (clientIds.has(c.clientId)) throw err('invalid_id_jag_clients', `idJagClients[${i}].clientId is listed twice`);
    clientIds.add(c.clientId);
  }

  return {
    issuer,
    clientId,
    clientSecret,
    emailDomains,
    defaultRole: 'member',
    groupsClaim,
    roleMappings,
    requireSso: flag(input.requireSso, 'requireSso'),
    acceptIdJag: flag(input.acceptIdJag, 'acceptIdJag'),
    idJagClients,
  };
}

function snake(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The way around DNS, for a failed verification's message: the operator's command (docs/sso.md). */
function operatorVerification(organizationId: string, domain: string): string {
  return `Where DNS cannot be changed, an operator of this deployment can verify it: npm run cli -- verify-domain --organization ${organizationId} --domain ${domain}`;
}
