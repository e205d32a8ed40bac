import { Injectable } from '@nestjs/common';
import { AppConfig, secureStoredSecrets } from '@app/config';
import { IdentityProviderDirectory } from './identity-provider.directory';

/**
 * The identity library's stored outbound secrets (the IdPs' client secrets) at start-up and for
 * `secrets-rotate`: `secureStoredSecrets` of the configuration library over them.
 */
@Injectable()
export class IdentityStoredSecrets {
  constructor(
    private readonly directory: IdentityProviderDirectory,
    private readonly config: AppConfig,
  ) {}

  async secure(options: { rotate: boolean }): Promise<number> {
    return secureStoredSecrets(
      this.config.secretsKeys,
      await this.directory.storedClientSecrets(),
      (place, was, stored) => this.directory.replaceStoredClientSecret(place.rowId, was, stored),
      options,
    );
  }
}
