import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { jwtVerify, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
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
import { ID_JAG_TYP, jwtVerifyRefusal, MAX_ID_JAG_AGE_SECONDS, readClaims, readHeader, SKEW_SECONDS, tenantClaim, tooLong } from './id-jag-claims';
import { grantedPermissions } from './id-jag-scope';
import { isOwnResource, singleParam } from './oauth-params';
import { JWT_BEARER_GRANT } from './registration-metadata';
import { IdJagAssertionsRepository } from './store/id-jag-assertions.repository';
import { OAuthClientsRepository } from './store/oauth-clients.repository';
import { fail, TokenIssuer, TokenResponse } from './token-issuer.service';

/** The authorization grant profile an ID-JAG follows (AS metadata `authorization_grant_profiles_supported`). */
export const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';
export { ID_JAG_TYP } from './id-jag-claims';

/** How long a client is asked to wait when the IdP's key set cannot be read (`Retry-After`). */
const IDP_RETRY_AFTER_SECONDS = 30;
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
    const unverified = readClaims(assertion);
    if (typeof unverified.iss !== 'string' || !unverified.iss) throw invalidGrant('The ID-JAG has no iss claim');
    const provider = await this.acceptingProvider(client, unverified.iss, tenantClaim(unverified));
    const claims = await this.verifiedClaims(assertion, header, provider.issuer, unverified);
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

  /**
   * The claims, once jose's `jwtVerify` checked in one call the signature (the issuer's key set,
   * refetched on an unknown `kid`), the algorithm (the one list shared with single sign-on),
   * `typ`, `iss`, `aud`, the required claims, `exp`, `nbf`, `iat` not in the future and not older
   * than the longest lifetime, with the clock skew. A key set that cannot be fetched or read is an
   * outage: 503 `temporarily_unavailable` with `Retry-After`, counted and logged.
   */
  private async verifiedClaims(assertion: string, header: ProtectedHeaderParameters, iss: string, unverified: JWTPayload): Promise<JWTPayload & Record<string, unknown>> {
    try {
      const { payload } = await jwtVerify(assertion, await this.idpMetadata.keys(iss), {
        algorithms: [...IDP_SIGNING_ALGORITHMS],
        typ: ID_JAG_TYP,
        issuer: iss,
        audience: this.config.issuer,
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
        maxTokenAge: MAX_ID_JAG_AGE_SECONDS,
        clockTolerance: SKEW_SECONDS,
      });
      return payload as JWTPayload & Record<string, unknown>;
    } catch (error) {
      if (error instanceof IdentityProviderError) {
        this.idpMetadata.reportFailure(error, 'id_jag', iss);
        throw new OAuthError('temporarily_unavailable', `The identity provider's key set cannot be read just now: ${error.message}`, {
          outage: true,
          retryAfterSeconds: IDP_RETRY_AFTER_SECONDS,
        });
      }
      throw invalidGrant(jwtVerifyRefusal(error, header, unverified, this.config.issuer));
    }
  }

  /**
   * What jose has no option for: `aud` a single value (jose accepts ours among several),
   * `client_id`, `resource`, the lifetime `exp - iat` (SPEC §10), `jti` and `sub` as usable
   * strings. Answers when the assertion expires.
   */
  private checkClaims(claims: JWTPayload & Record<string, unknown>, client: RegisteredClient): Date {
    if (Array.isArray(claims.aud) && claims.aud.length > 1) {
      throw invalidGrant(`The ID-JAG's aud must name this authorization server alone (${this.config.issuer}), not ${claims.aud.length} audiences`);
    }
    if (claims.client_id !== client.clientId) throw invalidGrant("The ID-JAG's client_id is not the authenticated client");
    if (claims.resource !== undefined) {
      const resources = Array.isArray(claims.resource) ? claims.resource : [claims.resource];
      if (resources.length === 0 || !resources.every((r) => typeof r === 'string' && isOwnResource(r, this.config.mcpResourceUrl))) {
        throw invalidGrant(`The ID-JAG's resource is not this server's MCP resource (${this.config.mcpResourceUrl})`);
      }
    }
    const lifetime = tooLong(claims);
    if (lifetime) throw invalidGrant(lifetime);
    if (typeof claims.jti !== 'string' || !claims.jti) throw invalidGrant('The ID-JAG has no jti claim');
    if (claims.jti.length > MAX_JTI_LENGTH) throw invalidGrant(`The ID-JAG's jti is longer than ${MAX_JTI_LENGTH} characters`);
    if (typeof claims.sub !== 'string' || !claims.sub) throw invalidGrant('The ID-JAG has no sub claim');
    return new Date((claims.exp! + SKEW_SECONDS) * 1000);
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
