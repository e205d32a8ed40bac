import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { NotFoundError } from '@app/common';
import { CredentialRevoker, generateToken, hashToken, TOKEN_PREFIXES } from '@app/credential-store';
import { IdentityProviderDirectory } from '@app/identity';
import { OAuthClientsRepository, OrganizationClientRow } from './store/oauth-clients.repository';

/**
 * An organisation's own clients (SPEC §10, "Organisation clients"), after an admin made them
 * (`ClientRegistrationService.createConfidential`): the list, one, a new secret, deletion. Each
 * answers only for the organisation's own clients: another organisation's is "not found".
 */
@Injectable()
export class OrganizationClientsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: OAuthClientsRepository,
    private readonly revoker: CredentialRevoker,
    private readonly providers: IdentityProviderDirectory,
    private readonly audit: AuditService,
  ) {}

  list(organizationId: string): Promise<OrganizationClientRow[]> {
    return this.store.listForOrganization(organizationId);
  }

  async get(organizationId: string, clientId: string): Promise<OrganizationClientRow> {
    const client = await this.store.findInOrganization(organizationId, clientId);
    if (!client) throw new NotFoundError('Organization client');
    return client;
  }

  /**
   * A new `dgs_` secret, shown once; the old one stops working at once (one conditional update).
   * Tokens already issued keep working (they are bound to the grant, not to the secret).
   */
  async rotate(organizationId: string, clientId: string, actor: AuditActor): Promise<{ clientId: string; clientSecret: string }> {
    const secret = generateToken(TOKEN_PREFIXES.clientSecret);
    await this.dataSource.transaction(async (em) => {
      if (!(await this.store.replaceSecret(em, organizationId, clientId, hashToken(secret)))) throw new NotFoundError('Organization client');
      await this.audit.record(em, { organizationId, ...actor, action: 'oauth_client.secret_rotated', targetType: 'oauth_client', targetId: clientId, metadata: {} });
    });
    return { clientId, clientSecret: secret };
  }

  /**
   * Deletes the client: its grants end with their tokens (audited `grant.revoked`), it leaves the
   * identity provider's `idJagClients`, and the row goes, in one transaction.
   */
  async remove(organizationId: string, clientId: string, actor: AuditActor): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const client = await this.store.findInOrganization(organizationId, clientId, em);
      if (!client) throw new NotFoundError('Organization client');
      const revoked = await this.revoker.revokeClientAccess(em, organizationId, [clientId], actor);
      await this.providers.forgetIdJagClient(organizationId, clientId, em);
      if (!(await this.store.deleteInOrganization(em, organizationId, clientId))) throw new NotFoundError('Organization client');
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'oauth_client.deleted',
        targetType: 'oauth_client',
        targetId: clientId,
        metadata: { clientName: client.clientName, revokedGrants: revoked.revokedGrants, revokedTokens: revoked.revokedTokens },
      });
    });
  }
}
