import { Injectable, Module } from '@nestjs/common';
import { AppConfig, secureStoredSecrets } from '@app/config';
import { secretPlace } from './approval-webhook.service';
import { ApprovalWebhooksRepository } from './approval-webhooks.repository';

/**
 * The approval webhooks' stored signing secrets at start-up and for `secrets-rotate`:
 * `secureStoredSecrets` of the configuration library over them.
 */
@Injectable()
export class ApprovalWebhookStoredSecrets {
  constructor(
    private readonly webhooks: ApprovalWebhooksRepository,
    private readonly config: AppConfig,
  ) {}

  async secure(options: { rotate: boolean }): Promise<number> {
    const stored = await this.webhooks.storedSecrets();
    return secureStoredSecrets(
      this.config.secretsKeys,
      stored.map((s) => ({ place: secretPlace(s.organizationId), stored: s.stored })),
      (place, was, value) => this.webhooks.replaceStoredSecret(place.rowId, was, value),
      options,
    );
  }
}

/** The approval webhooks' table and stored secrets alone: what `secrets-rotate` of the command line needs. */
@Module({
  providers: [ApprovalWebhooksRepository, ApprovalWebhookStoredSecrets],
  exports: [ApprovalWebhooksRepository, ApprovalWebhookStoredSecrets],
})
export class ApprovalWebhookSecretsModule {}
