import type { INestApplicationContext } from '@nestjs/common';
import { DomainError } from '@app/common';
import { AccountsService } from '@app/people';

/** The command line's exit codes (`EXIT` of cli.ts, which imports this file). */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface ReleaseEmailIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * `release-email --email <email>` (SPEC §10): frees an address of a verified single sign-on domain
 * that a password account took before the domain was verified (`AccountsService.releaseEmail`).
 * Exit 0 when released, 1 when refused (the reason on stderr), 2 for a bad invocation.
 */
export async function releaseEmail(
  email: string | undefined,
  io: ReleaseEmailIo,
  inContext: (fn: (app: INestApplicationContext) => Promise<number>) => Promise<number>,
): Promise<number> {
  if (!email) {
    io.stderr.write('release-email needs --email.\n\nRun "agent-gateway-cli help" for the commands.\n');
    return EXIT.usage;
  }
  return inContext(async (app) => {
    try {
      const released = await app.get(AccountsService).releaseEmail(email, { actorType: 'cli', actorId: null });
      io.stdout.write(`${released.email} is released: the account ${released.userId} is now ${released.replacement}, its sessions are ended, its memberships kept.\n`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      io.stderr.write(`${error.message}\n`);
      return EXIT.failed;
    }
  });
}
