import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AuditSinkStoredSecrets } from '@app/audit-sinks';
import { IdentityStoredSecrets } from '@app/identity';

/**
 * Every stored outbound secret at start-up (SPEC §10, "Stored outbound secrets"), after the
 * migrations and before the first request: one under a key id missing from SECRETS_KEYS fails the
 * start, naming where it is and the key id; one still in clear is encrypted under the current key.
 * The owners (identity, audit sinks) each read and write their own table.
 */
@Injectable()
export class StoredSecretsAtStart implements OnApplicationBootstrap {
  private readonly logger = new Logger('StoredSecrets');

  constructor(
    private readonly identity: IdentityStoredSecrets,
    private readonly sinks: AuditSinkStoredSecrets,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const encrypted = (await this.identity.secure({ rotate: false })) + (await this.sinks.secure({ rotate: false }));
    if (encrypted > 0) this.logger.log(`${encrypted} stored secret(s) that were in clear are now encrypted under the current SECRETS_KEYS key`);
  }
}
