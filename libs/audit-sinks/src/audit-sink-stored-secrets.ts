import { Injectable } from '@nestjs/common';
import { AppConfig, secureStoredSecrets } from '@app/config';
import { AuditSinksRepository } from './audit-sinks.repository';
import { sinkSecretPlace } from './audit-sinks.service';

/**
 * The sinks' stored outbound secrets (signing secrets, Splunk HEC tokens) at start-up and for
 * `secrets-rotate`: `secureStoredSecrets` of the configuration library over them.
 */
@Injectable()
export class AuditSinkStoredSecrets {
  constructor(
    private readonly sinks: AuditSinksRepository,
    private readonly config: AppConfig,
  ) {}

  async secure(options: { rotate: boolean }): Promise<number> {
    const stored = await this.sinks.storedSecrets();
    return secureStoredSecrets(
      this.config.secretsKeys,
      stored.map((s) => ({ place: sinkSecretPlace(s.id, s.column), stored: s.stored })),
      (place, was, value) => this.sinks.replaceStoredSecret(place.rowId, place.column as 'signing_secret' | 'token', was, value),
      options,
    );
  }
}
