import type { INestApplicationContext } from '@nestjs/common';
import { AuditSinkStoredSecrets } from '@app/audit-sinks';
import { AppConfig } from '@app/config';
import { IdentityStoredSecrets } from '@app/identity';

/**
 * `secrets-rotate`: every stored outbound secret re-encrypted under the current SECRETS_KEYS key
 * (and any still in clear encrypted), owner by owner; a secret under a key missing from the ring
 * stops it, naming where. Safe beside running instances that have the new ring: each value is
 * replaced only if it is still what was read.
 */
export async function secretsRotate(app: INestApplicationContext, io: { stdout: Pick<NodeJS.WritableStream, 'write'>; stderr: Pick<NodeJS.WritableStream, 'write'> }): Promise<number> {
  const current = app.get(AppConfig).secretsKeys[0]!.id;
  try {
    const identity = await app.get(IdentityStoredSecrets).secure({ rotate: true });
    const sinks = await app.get(AuditSinkStoredSecrets).secure({ rotate: true });
    io.stdout.write(
      `${identity + sinks} stored secret(s) re-encrypted under key ${current} (identity providers' client secrets: ${identity}; audit sinks' signing secrets and tokens: ${sinks}).\n` +
        'Older keys can leave SECRETS_KEYS once every instance runs with the new ring.\n',
    );
    return 0;
  } catch (error) {
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
