import { ConsoleLogger, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { DataFolderLockedError, DataFolderPermissionsError, runMigrations } from '@app/database';
import { CliModule } from './cli.module';

/**
 * What every command of the command line shares: its input and output, exit codes, the
 * application context it opens (refused with one sentence while the service holds the embedded
 * database) and the migrations it runs first.
 */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

/** `busy` (EX_TEMPFAIL): the embedded database's folder is held by another process (the running service). */
export const EXIT = { ok: 0, failed: 1, usage: 2, busy: 75, config: 78 } as const;

export async function migrate(app: INestApplicationContext, io: CliIo): Promise<void> {
  const applied = await runMigrations(app.get(DataSource));
  io.stdout.write(
    applied.length ? `Applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}\n` : 'Database schema is up to date.\n',
  );
}

/** What to do instead of a command that needs the embedded database while the service holds it. */
export const WHILE_THE_SERVICE_RUNS: Record<
  'migrate' | 'create-admin' | 'reset-link' | 'release-email' | 'verify-domain' | 'sso-require-off' | 'identity-provider-disconnect' | 'audit-verify' | 'secrets-rotate',
  string
> = {
  'secrets-rotate': 'On PostgreSQL (DATABASE_URL) it runs beside the service; with the embedded database, stop the service first.',
  'audit-verify': 'Or, while it runs, an admin (or an rk_ key with audit:read) calls GET /api/organizations/:orgId/audit-events/verify.',
  migrate: 'Nothing is needed while it runs: the service applied the migrations when it started.',
  'create-admin': 'Or, while it runs, use the REST equivalent: POST /api/auth/signup (creates a person and their organisation; needs SIGNUP_ENABLED=true).',
  'reset-link':
    'Or, while it runs, use the REST equivalent: an admin of the person\'s organisation calls POST /api/organizations/:orgId/members/:userId/reset-link.',
  'release-email': 'It has no REST equivalent (an address is released by the operator only).',
  'verify-domain':
    'Or, while it runs, publish the domain\'s TXT record and have an admin call POST /api/organizations/:orgId/identity-provider/domains/:domain/verify.',
  'sso-require-off':
    'Or, while it runs, an admin with a single sign-on session calls PUT /api/organizations/:orgId/identity-provider with requireSso false.',
  'identity-provider-disconnect':
    'Or, while it runs, an admin with a single sign-on session calls DELETE /api/organizations/:orgId/identity-provider.',
};

/** The refusal of a command beside the running service: the sentence and the fix, no stack. */
export function dataFolderBusyMessage(error: DataFolderLockedError, command: keyof typeof WHILE_THE_SERVICE_RUNS): string {
  return `${error.message}\nFix: stop the service (process ${error.holder.pid}) and run this command again. ${WHILE_THE_SERVICE_RUNS[command]}\n`;
}

/**
 * The command line's Nest logger: errors and warnings, except the framework's own report of a
 * data folder held by the running service (with its stack), which the command line answers
 * itself with one sentence and the fix.
 */
class CliLogger extends ConsoleLogger {
  constructor() {
    super('', { logLevels: ['error', 'warn'] });
  }

  override error(message: unknown, ...rest: unknown[]): void {
    if (message instanceof DataFolderLockedError || message instanceof DataFolderPermissionsError) return;
    super.error(message, ...(rest as [string?]));
  }
}

/**
 * Starts the command line's application context (the configured database: embedded in
 * DATA_DIR when DATABASE_URL is unset), runs `fn`, closes it (pool, then embedded database).
 * A data folder another process holds (the running service) is refused before anything is
 * written: a change made to a copy the service does not see would be lost.
 */
export async function withContext(
  config: AppConfig,
  io: CliIo,
  command: keyof typeof WHILE_THE_SERVICE_RUNS,
  fn: (app: INestApplicationContext) => Promise<number>,
): Promise<number> {
  let app: INestApplicationContext;
  try {
    app = await NestFactory.createApplicationContext(CliModule.forRoot(config), {
      logger: new CliLogger(),
      abortOnError: false,
    });
  } catch (error) {
    if (error instanceof DataFolderPermissionsError) {
      io.stderr.write(`${error.message}\n`);
      return EXIT.config;
    }
    if (!(error instanceof DataFolderLockedError)) throw error;
    io.stderr.write(dataFolderBusyMessage(error, command));
    return EXIT.busy;
  }
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
