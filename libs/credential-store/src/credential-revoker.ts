import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditActor, AuditService, SYSTEM_ACTOR } from '@app/audit';
import { AgentTokensRepository } from './repositories/agent-tokens.repository';
import { DerivedTokensRepository } from './repositories/derived-tokens.repository';
import { ApiKeysRepository } from './repositories/api-keys.repository';
import { OAuthGrantsRepository, RevokedGrant } from './repositories/oauth-grants.repository';
import { RefreshTokensRepository } from './repositories/refresh-tokens.repository';
import { ServiceKeysRepository } from './repositories/service-keys.repository';

export type GrantRevocationReason =
  | 'revoked_by_user'
  | 'revoked_by_admin'
  | 'revoked_by_client'
  | 'authorization_code_replay'
  | 'refresh_token_reuse'
  | 'member_removed'
  | 'project_deleted'
  | 'client_refused'
  | 'id_jag_settings_changed';

export interface GrantRevocationResult {
  id: string;
  status: 'revoked';
  revokedAt: Date;
  revokedTokens: number;
}

export interface RevokedAccess {
  /** Agent tokens (`dga_`: OAuth access tokens and derived project tokens) revoked. */
  revokedTokens: number;
  /** OAuth grants ended (with their refresh tokens), so their clients cannot refresh. */
  revokedGrants: number;
}

/** The credentials that act on one project. */
export interface ProjectAccess {
  /** Live project tokens derived from service keys (active, or rotating out). */
  derivedTokens: number;
  /** Live OAuth grants with tokens: AI clients connected to the project. */
  connectedClients: number;
}

/** What a person leaving (or losing the admin role) held, and what became of their `rk_` keys. */
export interface OffboardingReport {
  /** The `rk_` keys they created: revoked, or handed over to the acting admin. */
  apiKeys: { outcome: 'revoked' | 'handed_over'; keys: { id: string; name: string }[] };
  /** Service keys they created: kept working (the machines' credentials), to be rotated. */
  serviceKeys: { id: string; name: string }[];
  /** Live project tokens derived from those service keys: kept working, to be rotated. */
  derivedTokens: { id: string; serviceKeyId: string; projectId: string }[];
}

/** What removing a person from an organisation would end and what it would leave (nothing changed yet). */
export interface MemberRemovalPreview {
  /** Their live OAuth grants in the organisation (connected AI clients), ended with their tokens. */
  connectedClients: number;
  /** The live `rk_` keys they created there: revoked, or handed over to the acting admin. */
  apiKeys: { id: string; name: string }[];
  /** Service keys they created, and the live tokens derived from them: kept working. */
  serviceKeys: { id: string; name: string }[];
  derivedTokens: number;
}

/**
 * Every revocation of a credential and what it takes with it, in one place:
 * - a grant → its refresh tokens and access tokens (and a `grant.revoked` audit event);
 * - a service key → every project token derived from it (the active ones and those rotating out);
 * - a member leaving an organisation → their agent tokens and grants in it;
 * - a project deleted → every agent token bound to it and every grant on it;
 * - an organisation refusing a client → that client's grants in it;
 * - an organisation's ID-JAG settings changing → the ID-JAG grants they no longer back;
 * - an API key → itself and the key it replaced while that one rotates out;
 * - a derived project token → itself and the token it replaced while that one rotates out;
 * - a single OAuth access token → itself.
 * Each is a conditional update (only live rows change), run inside the caller's transaction
 * (its EntityManager), so the change that causes it and the revocations commit together.
 */
@Injectable()
export class CredentialRevoker {
  constructor(
    private readonly agentTokens: AgentTokensRepository,
    private readonly derivedTokens: DerivedTokensRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly serviceKeys: ServiceKeysRepository,
    private readonly grants: OAuthGrantsRepository,
    private readonly refreshTokens: RefreshTokensRepository,
    private readonly audit: AuditService,
  ) {}

  /** Ends one grant, for the reason given. Null when it was already revoked (or does not exist). */
  async revokeGrant(em: EntityManager, grantId: string, reason: GrantRevocationReason, actor: AuditActor): Promise<GrantRevocationResult | null> {
    const [grant] = await this.grants.revokeOne(em, grantId);
    return grant ? this.endGrant(em, grant, reason, actor) : null;
  }

  /** A member was removed from an organisation: their agent tokens and grants in it stop working. */
  async revokeMemberAccess(em: EntityManager, organizationId: string, userId: string, actor: AuditActor = SYSTEM_ACTOR): Promise<RevokedAccess> {
    const revokedTokens = await this.agentTokens.revokeForMember(em, organizationId, userId);
    const grants = await this.grants.revokeForMember(em, organizationId, userId);
    for (const grant of grants) await this.endGrant(em, grant, 'member_removed', actor);
    return { revokedTokens, revokedGrants: grants.length };
  }

  /**
   * A person was removed or lost the admin role: the `rk_` keys they created in the
   * organisation end (or, by the acting admin's explicit choice, pass to `handOverTo`), each
   * audited; the service keys they created and the tokens derived from them are listed, not
   * ended. Runs in the caller's transaction.
   */
  async offboard(
    em: EntityManager,
    organizationId: string,
    userId: string,
    options: { handOverTo: string | null; reason: 'member_removed' | 'member_demoted' },
    actor: AuditActor = SYSTEM_ACTOR,
  ): Promise<OffboardingReport> {
    const keys = await this.apiKeys.endOrHandOverCreatedBy(em, organizationId, userId, options.handOverTo);
    for (const key of keys) {
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: options.handOverTo ? 'api_key.handed_over' : 'api_key.revoked',
        targetType: 'api_key',
        targetId: key.id,
        metadata: { name: key.name, reason: options.reason, createdBy: userId, ...(options.handOverTo ? { handedOverTo: options.handOverTo } : {}) },
      });
    }
    const serviceKeys = (await this.serviceKeys.liveCreatedBy(em, organizationId, userId)).map((k) => ({ id: k.id, name: k.name }));
    const derivedTokens = await this.derivedTokens.liveDerivedFrom(
      em,
      serviceKeys.map((k) => k.id),
    );
    return { apiKeys: { outcome: options.handOverTo ? 'handed_over' : 'revoked', keys }, serviceKeys, derivedTokens };
  }

  /** What `revokeMemberAccess` and `offboard` would do for this person now, read in `em`. */
  async previewMemberRemoval(em: EntityManager, organizationId: string, userId: string): Promise<MemberRemovalPreview> {
    const [connectedClients, apiKeys, serviceKeys] = await Promise.all([
      this.grants.countLiveForMember(em, organizationId, userId),
      this.apiKeys.liveCreatedBy(em, organizationId, userId),
      this.serviceKeys.liveCreatedBy(em, organizationId, userId),
    ]);
    const derived = await this.derivedTokens.liveDerivedFrom(
      em,
      serviceKeys.map((k) => k.id),
    );
    return { connectedClients, apiKeys, serviceKeys: serviceKeys.map((k) => ({ id: k.id, name: k.name })), derivedTokens: derived.length };
  }

  /** A project was deleted: every agent token bound to it and every grant on it stop working. */
  async revokeProjectAccess(em: EntityManager, projectId: string, actor: AuditActor = SYSTEM_ACTOR): Promise<RevokedAccess> {
    const revokedTokens = await this.agentTokens.revokeForProject(em, projectId);
    const grants = await this.grants.revokeForProject(em, projectId);
    for (const grant of grants) await this.endGrant(em, grant, 'project_deleted', actor);
    return { revokedTokens, revokedGrants: grants.length };
  }

  /**
   * What deleting the project would end now (`revokeProjectAccess`), as a person is told before
   * confirming: its live derived project tokens and its connected clients (live grants).
   */
  async projectAccess(projectId: string): Promise<ProjectAccess> {
    return {
      derivedTokens: await this.derivedTokens.countLiveDerivedForProject(projectId),
      connectedClients: await this.grants.countConnectedToProject(projectId),
    };
  }

  /** An organisation stopped admitting these clients: their grants in it (with their tokens) end. */
  async revokeClientAccess(em: EntityManager, organizationId: string, clientIds: string[], actor: AuditActor = SYSTEM_ACTOR): Promise<RevokedAccess> {
    if (clientIds.length === 0) return { revokedTokens: 0, revokedGrants: 0 };
    const grants = await this.grants.revokeForOrganizationClients(em, organizationId, clientIds);
    let revokedTokens = 0;
    for (const grant of grants) revokedTokens += (await this.endGrant(em, grant, 'client_refused', actor)).revokedTokens;
    return { revokedTokens, revokedGrants: grants.length };
  }

  /**
   * An organisation's ID-JAG settings changed (SPEC §10): the ID-JAG grants, with their tokens, of
   * every (issuer, client, project) the settings no longer list end; `kept` is what they list now
   * (empty when `acceptIdJag` is off or the identity provider is gone).
   */
  async revokeIdJagAccess(
    em: EntityManager,
    organizationId: string,
    kept: readonly { issuer: string; clientId: string; projectId: string }[],
    actor: AuditActor = SYSTEM_ACTOR,
  ): Promise<RevokedAccess> {
    const grants = await this.grants.revokeIdJagGrantsExcept(em, organizationId, kept);
    let revokedTokens = 0;
    for (const grant of grants) revokedTokens += (await this.endGrant(em, grant, 'id_jag_settings_changed', actor)).revokedTokens;
    return { revokedTokens, revokedGrants: grants.length };
  }

  /** The key and every token derived from it. Null when the key is unknown or already revoked. */
  async revokeServiceKey(em: EntityManager, organizationId: string, keyId: string): Promise<{ revokedAt: Date; revokedTokens: number } | null> {
    const revokedAt = await this.serviceKeys.revoke(em, organizationId, keyId);
    if (!revokedAt) return null;
    return { revokedAt, revokedTokens: await this.agentTokens.revokeForServiceKey(em, keyId) };
  }

  /**
   * One derived project token and, when it is the active one, the token it replaced while that
   * one rotates out (`alsoRevoked`). Null when it is unknown or already revoked.
   */
  revokeProjectToken(
    em: EntityManager,
    organizationId: string,
    keyId: string,
    tokenId: string,
  ): Promise<{ projectId: string; revokedAt: Date; alsoRevoked: string[] } | null> {
    return this.derivedTokens.revokeDerived(em, organizationId, keyId, tokenId);
  }

  /** One OAuth access token by its digest, only the named client's when a client is named. */
  async revokeOAuthAccessToken(tokenHash: string, clientId: string | null): Promise<void> {
    await this.agentTokens.revokeOAuthTokenByHash(tokenHash, clientId);
  }

  /** One API key, and the key it replaced if that one is still rotating out. Null when it is unknown or already revoked. */
  async revokeApiKey(em: EntityManager, organizationId: string, id: string): Promise<{ name: string; revokedAt: Date } | null> {
    const revoked = await this.apiKeys.revoke(em, organizationId, id);
    if (revoked) await this.apiKeys.revokeRotatingOutPredecessor(em, organizationId, id);
    return revoked;
  }

  private async endGrant(em: EntityManager, grant: RevokedGrant, reason: GrantRevocationReason, actor: AuditActor): Promise<GrantRevocationResult> {
    await this.refreshTokens.revokeForGrant(em, grant.id);
    const revokedTokens = await this.agentTokens.revokeForGrant(em, grant.id);
    await this.audit.record(em, {
      organizationId: grant.organizationId,
      projectId: grant.projectId,
      ...actor,
      action: 'grant.revoked',
      targetType: 'oauth_grant',
      targetId: grant.id,
      metadata: { reason, clientId: grant.clientId, userId: grant.userId, revokedAccessTokens: revokedTokens },
    });
    return { id: grant.id, status: 'revoked', revokedAt: grant.revokedAt, revokedTokens };
  }
}
