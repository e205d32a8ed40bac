import type { INestApplicationContext } from '@nestjs/common';
import { AuditChainService, SERVICE_CHAIN } from '@app/audit';
import { isUuid } from '@app/database';

/** The command line's exit codes (`EXIT` of cli.ts, which imports this file). */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** What `audit-verify` needs of the command line: its output and a way to run in its application context. */
export interface AuditVerifyIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * `audit-verify --organization <id>` or `--service`: checks a chain (every link, hash and signed
 * checkpoint, as `GET …/audit-events/verify`) and prints the verdict as JSON. Exit 0 when
 * intact, 1 when broken, 2 for a bad invocation.
 */
export async function auditVerify(
  options: { organization?: string; service?: boolean },
  io: AuditVerifyIo,
  inContext: (fn: (app: INestApplicationContext) => Promise<number>) => Promise<number>,
): Promise<number> {
  if (Boolean(options.organization) === Boolean(options.service)) {
    io.stderr.write('audit-verify needs --organization <organization id> or --service (one of them).\n');
    return EXIT.usage;
  }
  if (options.organization && !isUuid(options.organization)) {
    io.stderr.write(`--organization must be an organization id (a UUID), not ${JSON.stringify(String(options.organization).slice(0, 100))}.\n`);
    return EXIT.usage;
  }
  const chain = options.organization ?? SERVICE_CHAIN;
  return inContext(async (app) => {
    const verdict = await app.get(AuditChainService).verify(chain);
    io.stdout.write(`${JSON.stringify({ chain, ...verdict }, null, 2)}\n`);
    return verdict.intact ? EXIT.ok : EXIT.failed;
  });
}
