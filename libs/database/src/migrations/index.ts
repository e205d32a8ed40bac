import { CoreSchema1764000000000 } from './1764000000000-core-schema';
import { OAuthSchema1764000002000 } from './1764000002000-oauth-schema';
import { RateLimitsAndCleanup1764000005000 } from './1764000005000-rate-limits-and-cleanup';
import { PeopleLifecycle1764000008000 } from './1764000008000-people-lifecycle';
import { CredentialRotation1764000010000 } from './1764000010000-credential-rotation';
import { OrganizationClientPolicies1764000012000 } from './1764000012000-organization-client-policies';
import { ClientMetadataDocuments1764000014000 } from './1764000014000-client-metadata-documents';
import { AuditFilterIndexes1764000016000 } from './1764000016000-audit-filter-indexes';
import { ResetLinkIssuer1764000016500 } from './1764000016500-reset-link-issuer';
import { SecretHintsAndTokenExpiry1764000016700 } from './1764000016700-secret-hints-and-token-expiry';
import { RateLimitLeases1764000017500 } from './1764000017500-rate-limit-leases';
import { SignInSessions1764000018000 } from './1764000018000-sign-in-sessions';
import { EnterpriseIdentity1764000019000 } from './1764000019000-enterprise-identity';
import { Scim1764000019400 } from './1764000019400-scim';
import { IdJag1764000019500 } from './1764000019500-id-jag';
import { PerIdpRedirectUris1764000020000 } from './1764000020000-per-idp-redirect-uris';
import { MembershipStart1764000020100 } from './1764000020100-membership-start';
import { SsoStates1764000020200 } from './1764000020200-sso-states';
import { OrganizationClients1764000020500 } from './1764000020500-organization-clients';
import { ScimTokenExpiry1764000022000 } from './1764000022000-scim-token-expiry';
import { IdentityProviderScopes1764000022500 } from './1764000022500-identity-provider-scopes';
import { LastIdToken1764000022600 } from './1764000022600-last-id-token';
import { OrganizationPolicies1764000023000 } from './1764000023000-organization-policies';
import { SessionAuthenticatedAt1764000023100 } from './1764000023100-session-authenticated-at';
import { Approvals1764000024000 } from './1764000024000-approvals';
import { ApprovalDecisions1764000024001 } from './1764000024001-approval-decisions';
import { ApprovalWebhooks1764000024002 } from './1764000024002-approval-webhooks';
import { SsoStepUpStates1764000024100 } from './1764000024100-sso-step-up-states';
import { AuditChain1764000025000 } from './1764000025000-audit-chain';
import { PersonEmailRead1764000025100 } from './1764000025100-person-email-read';
import { AuditSinks1764000026000 } from './1764000026000-audit-sinks';
import { AuditStreamPositions1764000026500 } from './1764000026500-audit-stream-positions';
import { AuditRetention1764000026600 } from './1764000026600-audit-retention';
import { MembershipEndingsWithoutDeprovisioned1764000027100 } from './1764000027100-membership-endings-without-deprovisioned';
import { SessionsOneMechanism1764000027200 } from './1764000027200-sessions-one-mechanism';

/** Every migration, in order. A new migration is added here as well as in this folder. */
export const MIGRATIONS = [
  CoreSchema1764000000000,
  OAuthSchema1764000002000,
  RateLimitsAndCleanup1764000005000,
  PeopleLifecycle1764000008000,
  CredentialRotation1764000010000,
  OrganizationClientPolicies1764000012000,
  ClientMetadataDocuments1764000014000,
  AuditFilterIndexes1764000016000,
  ResetLinkIssuer1764000016500,
  SecretHintsAndTokenExpiry1764000016700,
  RateLimitLeases1764000017500,
  SignInSessions1764000018000,
  EnterpriseIdentity1764000019000,
  Scim1764000019400,
  IdJag1764000019500,
  PerIdpRedirectUris1764000020000,
  MembershipStart1764000020100,
  SsoStates1764000020200,
  OrganizationClients1764000020500,
  ScimTokenExpiry1764000022000,
  IdentityProviderScopes1764000022500,
  LastIdToken1764000022600,
  OrganizationPolicies1764000023000,
  SessionAuthenticatedAt1764000023100,
  Approvals1764000024000,
  ApprovalDecisions1764000024001,
  ApprovalWebhooks1764000024002,
  SsoStepUpStates1764000024100,
  AuditChain1764000025000,
  PersonEmailRead1764000025100,
  AuditSinks1764000026000,
  AuditStreamPositions1764000026500,
  AuditRetention1764000026600,
  MembershipEndingsWithoutDeprovisioned1764000027100,
  SessionsOneMechanism1764000027200,
];
