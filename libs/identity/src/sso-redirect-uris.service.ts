import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { NotFoundError } from '@app/common';
import { AppConfig } from '@app/config';
import { IdentityProviderDirectory } from './identity-provider.directory';
import { IdentityProviderRedirectDirectory } from './identity-provider-redirects.directory';

/** The path every organisation's redirect URI starts with; alone, it is the legacy shared URI. */
export const SSO_CALLBACK_PATH = '/auth/sso/callback';

/**
 * Per-IdP redirect URIs (SPEC §10): each organisation's IdP answers on
 * `{BASE_URL}/auth/sso/callback/<id>`, so a code one IdP sends can never reach another's token
 * endpoint (the IdP mix-up of RFC 9700 §4.4). IdPs connected before keep the shared URI
 * (`legacyRedirectUri`) until an admin confirms the new one is registered.
 */
@Injectable()
export class SsoRedirectUris {
  constructor(
    private readonly dataSource: DataSource,
    private readonly redirects: IdentityProviderRedirectDirectory,
    private readonly providers: IdentityProviderDirectory,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
  ) {}

  /** The shared redirect URI of IdPs connected before per-IdP URIs. */
  get legacyUri(): string {
    return `${this.config.baseUrl}${SSO_CALLBACK_PATH}`;
  }

  /** The organisation's redirect URI, its id made on first use. */
  async uriFor(organizationId: string, em?: EntityManager): Promise<string> {
    return `${this.legacyUri}/${await this.redirects.idFor(organizationId, em)}`;
  }

  /** The organisation a callback id belongs to, or null for an unknown id. */
  organizationOf(callbackId: string): Promise<string | null> {
    return this.redirects.organizationOf(callbackId);
  }

  /**
   * "I registered the new URI": clears the organisation's legacy flag, so only its own URI is
   * accepted from now on (audited `identity_provider.redirect_uri_confirmed`; 404 without an IdP;
   * nothing recorded when the flag was already clear).
   */
  async confirmNewUri(organizationId: string, actor: AuditActor): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const locked = await this.providers.findForUpdate(organizationId, em);
      if (!locked) throw new NotFoundError('Identity provider');
      if (!locked.legacyRedirectUri) return;
      await this.providers.save({ organizationId, legacyRedirectUri: false }, em);
      const redirectUri = await this.uriFor(organizationId, em);
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'identity_provider.redirect_uri_confirmed',
        targetType: 'identity_provider',
        targetId: organizationId,
        metadata: { issuer: locked.issuer, redirectUri },
      });
    });
  }
}
