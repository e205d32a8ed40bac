import type { IdentityProviderDomain, IdentityProviderRecord, IdJagClient, RoleMapping } from './entities';
import { verificationRecord, type VerificationRecord } from './email-domains';

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
  /** Extra OpenID scopes asked for at sign-in, after `openid email profile`. */
  scopes: string[];
  roleMappings: RoleMapping[];
  requireSso: boolean;
  acceptIdJag: boolean;
  idJagClients: IdJagClient[];
  /** When an admin of the organisation first signed in through this IdP (ID-JAG acceptance needs it). */
  adminSignedInAt: Date | null;
  /** The IdP tenant named by an admin's ID token (`tenant` or `tid`), recorded at that sign-in; read-only. */
  tenant: string | null;
  /**
   * The last ID token the IdP sent that passed the checks (any person's sign-in since the issuer
   * or the scopes last changed): when, and its claim names; null when none yet.
   */
  lastIdToken: { receivedAt: Date; claims: string[] } | null;
  /**
   * Whether that ID token carried `groupsClaim`: null when no groups claim is configured or no
   * ID token arrived yet. False means nobody's role follows the mappings (SPEC §10's silent failure).
   */
  groupsClaimInLastIdToken: boolean | null;
  discovery: DiscoverySummary | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The stored settings as shown; the client secret is left out. */
export function identityProviderView(record: IdentityProviderRecord, domains: IdentityProviderDomain[], redirectUri: string): IdentityProviderView {
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
    scopes: record.scopes,
    roleMappings: record.roleMappings,
    requireSso: record.requireSso,
    acceptIdJag: record.acceptIdJag,
    idJagClients: record.idJagClients,
    adminSignedInAt: record.adminSignedInAt,
    tenant: record.tenant,
    lastIdToken: record.lastIdTokenAt ? { receivedAt: record.lastIdTokenAt, claims: record.lastIdTokenClaims ?? [] } : null,
    groupsClaimInLastIdToken: record.groupsClaim && record.lastIdTokenAt ? (record.lastIdTokenClaims ?? []).includes(record.groupsClaim) : null,
    discovery: (record.discovery as unknown as DiscoverySummary | null) ?? null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** A claimed domain as shown, with the TXT record that verifies it. */
export function domainView(d: IdentityProviderDomain): ClaimedDomainView {
  return {
    domain: d.domain,
    status: d.verifiedAt ? 'verified' : 'pending',
    verifiedAt: d.verifiedAt,
    txtRecord: verificationRecord(d.domain, d.verificationToken),
  };
}
