import { readFileSync } from 'node:fs';
import type { INestApplicationContext } from '@nestjs/common';
import { AuditChainService, type ChainVerdict, type CopyVerdict, SERVICE_CHAIN } from '@app/audit';
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
 * checkpoint, as `GET …/audit-events/verify`) and prints the verdict as JSON. With
 * `--sink-copy <file>`, also the sink's copy against the database (docs/audit.md, "A sink's
 * copy"): a gap or a rewrite it shows makes the verdict broken. Exit 0 when intact, 1 when
 * broken, 2 for a bad invocation or an unreadable copy.
 */
export async function auditVerify(
  options: { organization?: string; service?: boolean; 'sink-copy'?: string },
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
  let copy: string | undefined;
  if (options['sink-copy'] !== undefined) {
    try {
      copy = readFileSync(options['sink-copy'], 'utf8');
    } catch (error) {
      io.stderr.write(`--sink-copy: cannot read ${JSON.stringify(options['sink-copy'])} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}).\n`);
      return EXIT.usage;
    }
  }
  const chain = options.organization ?? SERVICE_CHAIN;
  return inContext(async (app) => {
    const chains = app.get(AuditChainService);
    const verdict = await chains.verify(chain);
    const sinkCopy = copy === undefined ? undefined : await chains.checkCopy(chain, copy);
    if (sinkCopy?.problem?.reason === 'copy_unreadable') {
      io.stderr.write(`--sink-copy: ${sinkCopy.problem.detail}.\n`);
      return EXIT.usage;
    }
    const result = withCopy(verdict, sinkCopy);
    io.stdout.write(`${JSON.stringify({ chain, ...result }, null, 2)}\n`);
    return result.intact ? EXIT.ok : EXIT.failed;
  });
}

/** The database's verdict, broken by the copy's problem when the database alone found none. */
function withCopy(verdict: ChainVerdict, copy: CopyVerdict | undefined): Record<string, unknown> & { intact: boolean } {
  if (!copy) return verdict;
  if (!verdict.intact || !copy.problem) return { ...verdict, sinkCopy: copy };
  const { problem } = copy;
  return { ...verdict, intact: false, firstBroken: problem.firstBroken, reason: problem.reason, ...(problem.gap ? { gap: problem.gap } : {}), sinkCopy: copy };
}
