import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { compactVerify, decodeJwt, decodeProtectedHeader, errors as joseErrors, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import { AuditService, RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { OAuthGrantStore } from '@app/credential-store';
import { IDP_SIGNING_ALGORITHMS, IdentityLinkDirectory, IdentityProviderDirectory, IdentityProviderError, IdpMetadata, type IdentityProviderRecord } from '@app/identity';
import { RateLimitService } from '@app/rate-limit';
import { MembershipDirectory, ProjectDirectory } from '@app/tenancy';
import { ClientPolicyService } from './client-policy/client-policy.service';
import { metadataDocumentHost } from './redirect-uri';
import type { RegisteredClient } from './oauth-clients.service';
import { invalidClient, OAuthError } from './oauth.errors';
import { grantedPermissions } from './id-jag-scope';
import { isOwnResource, singleParam } from './oauth-params';
import { JWT_BEARER_GRANT } from './registration-metadata';
import { IdJagAssertionsRepository } from './store/id-jag-assertions.repository';
import { OAuthClientsRepository } from './store/oauth-clients.repository';
import { fail, TokenIssuer, TokenResponse } from './token-issuer.service';

/** The authorization grant profile an ID-JAG follows (AS metadata `authorization_grant_profiles_supported`). */
export const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
/** The JWT `typ` header of an ID-JAG (RFC 8725 §3.11 explicit typing). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';

/** Clock skew tolerated on `exp` and `iat`. */
const SKEW_SECONDS = 60;
/** The longest an ID-JAG may live (`exp - iat`) and the oldest `iat` accepted (SPEC §10). */
const MAX_ID_JAG_AGE_SECONDS = 600;
const MAX_ASSERTION_LENGTH = 16 * 1024;
const MAX_JTI_LENGTH = 256;

/**
 * The jwt-bearer grant with an ID-JAG (MCP extension "Enterprise-Managed Authorization"; IETF
 * draft "Identity Assertion JWT Authorization Grant"): a confidential client trades an
 * assertion its user's enterprise identity provider signed for an access token on the project
 * the organisation's admins set for that client. No consent page, no refresh token.
 *
 * The assertion is checked in this order, each refusal naming its check and never echoing the
 * assertion: its header (`typ`, `alg`), its issuer (the IdP of the one organisation that
 * made the authenticated client, with its tenant where one is recorded), its signature (the IdP's key set,
 * refetched on an unknown `kid`), `aud`, `client_id`, `resource`, `exp`/`iat`, `jti`, `sub` (linked
 * to an active member), the client policy, the client's project, the scope; then the trade
 * limit, and in one transaction the single use of (`iss`, `jti`), the grant (one per person,
 * client, project and IdP, reused) and the access token.
 */
@Injectable()
export class IdJagExchangeService {
  constructor(
    private readonly config: AppConfig,
    private readonly issuer: TokenIssuer,
    private readonly providers: IdentityProviderDirectory,
    private readonly links: IdentityLinkDirectory,
    private readonly idpMetadata: IdpMetadata,
    private readonly memberships: MembershipDirectory,
    private readonly projects: ProjectDirectory,
    private readonly clientPolicies: ClientPolicyService,
    private readonly assertions: IdJagAssertionsRepository,
    private readonly grants: OAuthGrantStore,
    private readonly clients: OAuthClientsRepository,
    private readonly rateLimits: RateLimitService,
    private readonly audit: AuditService,
  ) {}

  /**
   * Refuses the clients that cannot trade an ID-JAG: a metadata-document client and any other
   * public client (the extension has the client authenticate; `client_secret_basic` or `_post`).
   */
  checkClient(client: RegisteredClient, usedBasic: boolean): void {
    if (metadataDocumentHost(client.clientId) !== undefined) {
      throw invalidClient(
        'A metadata-document client is public and cannot trade an ID-JAG: register a confidential client (token_endpoint_auth_method client_secret_basic or client_secret_post)',
        usedBasic,
      );
    }
    if (client.tokenEndpointAuthMethod === 'none') {
      throw invalidClient(
        'A public client cannot trade an ID-JAG: an admin of the organisation makes an organisation client (POST /api/organizations/:orgId/oauth-clients) and the AI client authenticates with its secret',
        usedBasic,
      );
    }
    if (!client.organizationId) {
      throw invalidClient(
        'Only an organisation client trades ID-JAGs: an admin of the organisation makes one (POST /api/organizations/:orgId/oauth-clients, or the Connected clients page)',
        usedBasic,
      );
    }
  }

  async exchange(client: RegisteredClient, body: Record<string, unknown>, origin: RequestOrigin): Promise<TokenResponse> {
    const assertion = singleParam(body, 'assertion').value;
    if (!assertion) throw new OAuthError('invalid_request', 'assertion is required (the ID-JAG)');
    this.issuer.checkResource(body);
    if (assertion.length > MAX_ASSERTION_LENGTH) throw invalidGrant(`The assertion is longer than ${MAX_ASSERTION_LENGTH} characters`);

    const header = readHeader(assertion);
    const typ = typeof header.typ === 'string' ? header.typ.toLowerCase() : undefined;
    if (typ !== ID_JAG_TYP && typ !== `application/${ID_JAG_TYP}`) {
      throw invalidGrant(`The assertion's typ header must be ${ID_JAG_TYP} (an ID-JAG)`);
    }
    if (typeof header.alg !== 'string' || header.alg.toLowerCase() === 'none' || /^HS/i.test(header.alg)) {
      throw invalidGrant("The assertion's alg must be an asymmetric signature algorithm (none and HS* are refused)");
    }
    if (!IDP_SIGNING_ALGORITHMS.includes(header.alg)) throw invalidGrant(`The assertion's alg must be one of ${IDP_SIGNING_ALGORITHMS.join(', ')}`);

    const unverified = readClaims(assertion);
    if (typeof unverified.iss !== 'string' || !unverified.iss) throw invalidGrant('The ID-JAG has no iss claim');
    const provider = await this.acceptingProvider(client, unverified.iss, tenantClaim(unverified));
    const claims = await this.verifiedClaims(assertion, provider.issuer);
    const expiresAt = this.checkClaims(claims, client);

    const subject = claims.sub as string;
    const userId = await this.links.userFor(provider.issuer, subject);
    if (!userId) {
      throw invalidGrant("The ID-JAG's subject is not linked to an account here: the person signs in once through the organisation's single sign-on");
    }
    const organizationId = provider.organizationId;
    const role = await this.memberships.roleOf(userId, organizationId);
    if (!role) throw invalidGrant('The person is not a member of the organisation whose identity provider issued the ID-JAG');
    if (await this.providers.isDeprovisioned(organizationId, { userId })) {
      throw invalidGrant("The person was deactivated in the organisation by its identity provider's provisioning (SCIM)");
    }
    if (!(await this.clientPolicies.admits(organizationId, client.clientId))) {
      throw invalidGrant("The organisation's client policy does not admit this client");
    }
    const entry = provider.idJagClients.find((c) => c.clientId === client.clientId);
    if (!entry) {
      throw invalidGrant(
        "This client is not among the organisation's ID-JAG clients: an admin adds its client_id with a project in the organisation's identity-provider settings (idJagClients)",
      );
    }
    if (!entry.projectId) {
      throw invalidGrant("No project is set for this client: an admin chooses its project in the organisation's identity-provider settings (idJagClients)");
    }
    const projectId = entry.projectId;
    if (!(await this.projects.isReachableBy(userId, organizationId, projectId))) {
      throw invalidGrant("The project set for this client in the organisation's identity-provider settings no longer exists or the person cannot reach it");
    }
    const permissions = grantedPermissions(singleParam(body, 'scope').value, claims.scope, role);

    await this.limitTrades(organizationId, userId, client.clientId);

    return this.issuer.inTransaction(async (em) => {
      if (!(await this.assertions.use(em, provider.issuer, claims.jti as string, expiresAt))) {
        return fail('invalid_grant', 'This ID-JAG was already used (its jti): each is traded once; ask the identity provider for a new one');
      }
      const grantId = await this.grants.upsertIdJagGrant(em, {
        userId,
        clientId: client.clientId,
        organizationId,
        projectId,
        permissions,
        resource: this.config.mcpResourceUrl,
        idJagIssuer: provider.issuer,
      });
      const grant = await this.issuer.liveGrant(em, grantId);
      if ('kind' in grant) return grant;
      const response = await this.issuer.issue(em, client, grant, permissions, null);
      await this.clients.markAuthorized(em, client.clientId);
      await this.clients.markUsed(em, client.clientId);
      await this.audit.record(em, {
        organizationId,
        projectId,
        actorType: 'user',
        actorId: userId,
        action: 'grant.id_jag_exchanged',
        targetType: 'oauth_grant',
        targetId: grantId,
        metadata: {
          identityProvider: provider.issuer,
          jti: claims.jti as string,
          clientId: client.clientId,
          clientName: client.clientName,
          permissions,
        },
        origin,
      });
      return { kind: 'issued', response };
    });
  }

  /**
   * The IdP settings of the organisation that made the client (SPEC §10, "ID-JAG routing"), when
   * they accept this issuer's (and tenant's) ID-JAGs.
   */
  private async acceptingProvider(client: RegisteredClient, iss: string, tenant: string | undefined): Promise<IdentityProviderRecord> {
    const acceptance = await this.providers.idJagAcceptor(client.organizationId!, iss, tenant);
    switch (acceptance.kind) {
      case 'accepted':
        return acceptance.provider;
      case 'other_issuer':
        throw invalidGrant("The ID-JAG's issuer is not the identity provider of the organisation this client belongs to");
      case 'tenant_required':
        throw invalidGrant(`The identity provider ${iss} serves many tenants: the ID-JAG must name its tenant (hd or tid), and an admin of the organisation must have signed in through it`);
      case 'other_tenant':
        throw invalidGrant("The ID-JAG's tenant is not the organisation's tenant at its identity provider");
      case 'not_accepting':
        throw invalidGrant(`The identity provider ${iss} does not accept ID-JAGs here: an admin switches on acceptIdJag in the organisation's identity-provider settings`);
      case 'no_admin_sign_in':
        throw invalidGrant(`The identity provider ${iss} accepts ID-JAGs only once an admin of the organisation has signed in through it`);
    }
  }

  /** The claims, once the signature verifies with the issuer's key set (refetched on an unknown `kid`). */
  private async verifiedClaims(assertion: string, iss: string): Promise<JWTPayload> {
    let keys: Awaited<ReturnType<IdpMetadata['keys']>>;
    try {
      keys = await this.idpMetadata.keys(iss);
    } catch (error) {
      if (error instanceof IdentityProviderError) throw invalidGrant(`The identity provider's key set could not be read: ${error.message}`);
      throw error;
    }
    try {
      await compactVerify(assertion, keys, { algorithms: [...IDP_SIGNING_ALGORITHMS] });
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) {
        throw invalidGrant("The ID-JAG's signing key (kid) is not in the identity provider's key set");
      }
      if (error instanceof IdentityProviderError) throw invalidGrant(`The identity provider's key set could not be read: ${error.message}`);
      throw invalidGrant("The ID-JAG's signature does not verify with the identity provider's keys");
    }
    return readClaims(assertion);
  }

  /** `aud`, `client_id`, `resource`, `exp`, `iat`, `jti`, `sub`; answers when the assertion expires. */
  private checkClaims(claims: JWTPayload & Record<string, unknown>, client: RegisteredClient): Date {
    const aud = claims.aud;
    if (Array.isArray(aud) && aud.length > 1) {
      throw invalidGrant(`The ID-JAG's aud must name this authorization server alone (${this.config.issuer}), not ${aud.length} audiences`);
    }
    const audience = Array.isArray(aud) ? aud[0] : aud;
    if (audience !== this.config.issuer) throw invalidGrant(`The ID-JAG's aud is not this authorization server's issuer (${this.config.issuer})`);
    if (claims.client_id !== client.clientId) throw invalidGrant("The ID-JAG's client_id is not the authenticated client");
    if (claims.resource !== undefined) {
      const resources = Array.isArray(claims.resource) ? claims.resource : [claims.resource];
      if (resources.length === 0 || !resources.every((r) => typeof r === 'string' && isOwnResource(r, this.config.mcpResourceUrl))) {
        throw invalidGrant(`The ID-JAG's resource is not this server's MCP resource (${this.config.mcpResourceUrl})`);
      }
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.exp !== 'number') throw invalidGrant('The ID-JAG has no exp claim');
    if (claims.exp + SKEW_SECONDS <= now) throw invalidGrant('The ID-JAG has expired (exp)');
    if (typeof claims.iat !== 'number') throw invalidGrant('The ID-JAG has no iat claim');
    if (claims.iat - SKEW_SECONDS > now) throw invalidGrant('The ID-JAG was issued in the future (iat)');
    if (claims.exp - claims.iat > MAX_ID_JAG_AGE_SECONDS) throw invalidGrant(`The ID-JAG lives longer than ${MAX_ID_JAG_AGE_SECONDS} seconds (exp - iat)`);
    if (now - claims.iat > MAX_ID_JAG_AGE_SECONDS + SKEW_SECONDS) throw invalidGrant(`The ID-JAG was issued more than ${MAX_ID_JAG_AGE_SECONDS} seconds ago (iat)`);
    if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf - SKEW_SECONDS > now)) throw invalidGrant('The ID-JAG is not valid yet (nbf)');
    if (typeof claims.jti !== 'string' || !claims.jti) throw invalidGrant('The ID-JAG has no jti claim');
    if (claims.jti.length > MAX_JTI_LENGTH) throw invalidGrant(`The ID-JAG's jti is longer than ${MAX_JTI_LENGTH} characters`);
    if (typeof claims.sub !== 'string' || !claims.sub) throw invalidGrant('The ID-JAG has no sub claim');
    return new Date((claims.exp + SKEW_SECONDS) * 1000);
  }

  /**
   * Trades per (organisation, person, client) and hour, on the counters every instance shares:
   * a fresh assertion never buys a fresh allowance (nor a fresh MCP request budget, which belongs
   * to the grant every trade reuses).
   */
  private async limitTrades(organizationId: string, userId: string, clientId: string): Promise<void> {
    const clientDigest = createHash('sha256').update(clientId).digest('hex');
    const decision = await this.rateLimits.consume([
      { key: `id-jag:${organizationId}:${userId}:${clientDigest}`, limit: this.config.idJagMaxTradesPerHour, windowSeconds: 3600 },
    ]);
    if (!decision.allowed) {
      throw new OAuthError(
        'temporarily_unavailable',
        `Too many ID-JAG trades for this person and client; retry in ${decision.retryAfterSeconds} s`,
        { retryAfterSeconds: decision.retryAfterSeconds },
      );
    }
  }
}

function invalidGrant(description: string): OAuthError {
  return new OAuthError('invalid_grant', description);
}

/** The ID-JAG's tenant claim: `tenant`, Microsoft Entra's `tid` or Google's `hd`. */
function tenantClaim(claims: Record<string, unknown>): string | undefined {
  for (const name of ['tenant', 'tid', 'hd']) if (typeof claims[name] === 'string' && claims[name]) return claims[name] as string;
  return undefined;
}

function readHeader(assertion: string): ProtectedHeaderParameters {
  try {
    return decodeProtectedHeader(assertion);
  } catch {
    throw invalidGrant('The assertion is not a JWT (three base64url parts, a JSON header)');
  }
}

function readClaims(assertion: string): JWTPayload & Record<string, unknown> {
  try {
    return decodeJwt(assertion) as JWTPayload & Record<string, unknown>;
  } catch {
    throw invalidGrant("The assertion's claims are not a JSON object");
  }
}
