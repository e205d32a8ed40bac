import { auditVerify } from './audit-verify';
import { releaseEmail } from './release-email';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ConsoleLogger, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { DataSource } from 'typeorm';
import { AccountsService, EmailTakenError, SignupDto, SsoRequiredForDomainError } from '@app/auth';
import { AppConfig, ConfigValidationError } from '@app/config';
import { PasswordResetService } from '@app/credentials';
import { UserDirectory } from '@app/tenancy';
import { DomainError, isUuid, NotFoundError } from '@app/common';
import { IdentityProviderSettings } from '@app/identity';
import { DataFolderLockedError, DataFolderPermissionsError, runMigrations } from '@app/database';
import { backup, restore } from './backup';
import { CliModule } from './cli.module';
import { secretsRotate } from './secrets-rotate';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

/** `busy` (EX_TEMPFAIL): the embedded database's folder is held by another process (the running service). */
export const EXIT = { ok: 0, failed: 1, usage: 2, busy: 75, config: 78 } as const;

const USAGE = `Usage: agent-gateway-cli <command> [options]

Commands:
  migrate
      Run the checked-in migrations against DATABASE_URL, or against the embedded database in
      DATA_DIR when DATABASE_URL is unset (stop the service first: the embedded database has one owner).
  create-admin --email <email> --name <name> --organization <organization name>
      Create a person and a new organisation they administer (for deployments with
      SIGNUP_ENABLED=false). Runs the migrations first. The password is read from the environment
      variable ADMIN_PASSWORD or, when that is unset, from standard input (asked for without echo on
      a terminal); it is never taken from the command line.
  backup <file>
      Write a consistent copy of the embedded database (DATA_DIR) to <file>, a gzip tarball. Works
      while the service runs: the copy is made by the service. With DATABASE_URL: use pg_dump.
  restore <file>
      Replace the embedded database with a backup made by \`backup\` (stop the service first). The
      current data folder is moved aside, never deleted.
  verify-domain --organization <organization id> --domain <domain>
      Mark an email domain the organisation claims for single sign-on as verified, without the
      DNS record (for operators who checked ownership another way). The domain must be among the
      organisation's identity-provider emailDomains; a domain another organisation verified is
      refused. Works beside the running service on PostgreSQL (DATABASE_URL).
  sso-require-off --organization <organization id>
      Turn "require single sign-on" off for the organisation, keeping its identity provider: the
      way back in when the identity provider is broken and password sessions open nothing there.
      Audited with the command line as actor. Works beside the running service on PostgreSQL.
  identity-provider-disconnect --organization <organization id>
      Disconnect the organisation's identity provider and delete its email-domain claims (as an
      admin's DELETE of the settings does). Audited with the command line as actor. Works beside
      the running service on PostgreSQL.
  release-email --email <email>
      Free an address of a verified single sign-on domain that a password account took before the
      domain was verified: the account keeps its id and memberships, gets the address
      released-<its id>@released.invalid and loses its sessions, so the person's single sign-on
      makes their own account. Refused for an account linked to single sign-on. Audited with the
      command line as actor. Works beside the running service on PostgreSQL.
  audit-verify --organization <organization id> | --service [--sink-copy <file>]
      Verify an audit chain (the organisation's, or the service's own): every record's link and
      hash and every signed checkpoint. Prints the verdict as JSON; exit 0 intact, 1 broken.
      --sink-copy: the NDJSON a sink received (https bodies, or Splunk HEC events), checked
      against the database: records or checkpoints it holds that the database lost are named.
  secrets-rotate
      Re-encrypt every stored outbound secret (identity providers' client secrets, audit sinks'
      signing secrets and tokens, approval webhooks' signing secrets) under the current SECRETS_KEYS
      key, the first of the ring; keep
      the older keys after it until this has run. Runs the migrations first.
  reset-link --email <email>
      Print a one-time password-reset link for the account with this email (for example the only
      admin, locked out). The link works once, for an hour; using it ends every session of that
      person. Shown once: pass it on to the person. Runs the migrations first.
  help
      Show this text.
`;

/** The command line's logic, separate from `main.ts` so tests run it in-process. Returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.stdout.write(USAGE);
    return command ? EXIT.ok : EXIT.usage;
  }
  if (command === 'backup' || command === 'restore') return backupCommand(command, rest, io);
  if (
    command !== 'migrate' &&
    command !== 'create-admin' &&
    command !== 'reset-link' &&
    command !== 'verify-domain' &&
    command !== 'sso-require-off' &&
    command !== 'identity-provider-disconnect' &&
    command !== 'release-email' &&
    command !== 'audit-verify' &&
    command !== 'secrets-rotate'
  ) {
    io.stderr.write(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`);
    return EXIT.usage;
  }
  let options: { email?: string; name?: string; organization?: string; domain?: string; service?: boolean; 'sink-copy'?: string } = {};
  try {
    options = parseArgs({
      args: rest,
      options:
        command === 'create-admin'
          ? { email: { type: 'string' }, name: { type: 'string' }, organization: { type: 'string' } }
          : command === 'reset-link' || command === 'release-email'
            ? { email: { type: 'string' } }
            : command === 'verify-domain'
              ? { organization: { type: 'string' }, domain: { type: 'string' } }
              : command === 'sso-require-off' || command === 'identity-provider-disconnect'
                ? { organization: { type: 'string' } }
                : command === 'audit-verify'
                  ? { organization: { type: 'string' }, service: { type: 'boolean' }, 'sink-copy': { type: 'string' } }
                  : {},
      strict: true,
      allowPositionals: false,
    }).values as typeof options;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = /password/i.test(rest.join(' '))
      ? ' The password is never taken from the command line: set ADMIN_PASSWORD or send it on standard input.'
      : '';
    io.stderr.write(`${message}.${hint}\n\n${USAGE}`);
    return EXIT.usage;
  }

  let config: AppConfig;
  try {
    config = AppConfig.fromEnvironment(io.env);
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      io.stderr.write(`${error.message}\n`);
      return EXIT.config;
    }
    throw error;
  }

  if (command === 'migrate') {
    return withContext(config, io, 'migrate', async (app) => {
      await migrate(app, io);
      return EXIT.ok;
    });
  }

  if (command === 'reset-link') return resetLink(config, options.email, io);
  if (command === 'release-email') return releaseEmail(options.email, io, (fn) => withContext(config, io, 'release-email', async (app) => (await migrate(app, io), fn(app))));
  if (command === 'secrets-rotate') return withContext(config, io, 'secrets-rotate', async (app) => (await migrate(app, io), secretsRotate(app, io)));
  if (command === 'audit-verify') return auditVerify(options, io, (fn) => withContext(config, io, 'audit-verify', async (app) => (await migrate(app, io), fn(app))));
  if (command === 'verify-domain') return verifyDomain(config, options.organization, options.domain, io);
  if (command === 'sso-require-off' || command === 'identity-provider-disconnect') return identityProviderCommand(command, config, options.organization, io);

  const missing = (['email', 'name', 'organization'] as const).filter((k) => !options[k]);
  if (missing.length) {
    io.stderr.write(`create-admin needs ${missing.map((m) => `--${m}`).join(', ')}.\n\n${USAGE}`);
    return EXIT.usage;
  }
  const password = await readPassword(io);
  const input = plainToInstance(SignupDto, {
    email: options.email,
    name: options.name,
    organizationName: options.organization,
    password,
  });
  const problems = (await validate(input)).flatMap((e) => Object.values(e.constraints ?? {}));
  if (problems.length) {
    const shown = problems.map((p) => p.replace(/^organizationName/, 'organization').replace(/^password/, 'password (ADMIN_PASSWORD or stdin)'));
    io.stderr.write(`Cannot create the admin:\n  - ${shown.join('\n  - ')}\n`);
    return EXIT.usage;
  }
  return withContext(config, io, 'create-admin', async (app) => {
    await migrate(app, io);
    try {
      const account = await app.get(AccountsService).createAccount(input, 'cli');
      io.stdout.write(
        `Created ${account.user.email} (user ${account.user.id}), admin of "${account.organization.name}" (organization ${account.organization.id}).\n`,
      );
      return EXIT.ok;
    } catch (error) {
      if (error instanceof EmailTakenError) {
        io.stderr.write(`${error.message}: ${input.email}\n`);
        return EXIT.failed;
      }
      if (error instanceof SsoRequiredForDomainError) {
        io.stderr.write(`${error.message}\n`);
        return EXIT.failed;
      }
      throw error;
    }
  });
}

async function backupCommand(command: 'backup' | 'restore', args: string[], io: CliIo): Promise<number> {
  if (args.length !== 1 || args[0].startsWith('-')) {
    io.stderr.write(`${command} needs exactly one argument: the backup file.\n\n${USAGE}`);
    return EXIT.usage;
  }
  let config: AppConfig;
  try {
    config = AppConfig.fromEnvironment(io.env);
  } catch (error) {
    if (!(error instanceof ConfigValidationError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return EXIT.config;
  }
  const outcome = command === 'backup' ? await backup(config, args[0], io) : await restore(config, args[0], io);
  return EXIT[outcome];
}

/** `reset-link --email`: a one-time reset link for any account, printed once. */
async function resetLink(config: AppConfig, email: string | undefined, io: CliIo): Promise<number> {
  if (!email) {
    io.stderr.write(`reset-link needs --email.\n\n${USAGE}`);
    return EXIT.usage;
  }
  return withContext(config, io, 'reset-link', async (app) => {
    await migrate(app, io);
    const userId = await app.get(UserDirectory).idByEmail(email);
    if (!userId) {
      io.stderr.write(`No account uses the email ${email}.\n`);
      return EXIT.failed;
    }
    const issued = await app.get(PasswordResetService).issue(null, userId, { actorType: 'cli', actorId: null });
    io.stdout.write(`Password-reset link for ${email} (works once, until ${issued.expiresAt}):\n${issued.link}\n`);
    return EXIT.ok;
  });
}

/** `verify-domain --organization --domain`: the operator's verification of a claimed email domain. */
async function verifyDomain(config: AppConfig, organizationId: string | undefined, domain: string | undefined, io: CliIo): Promise<number> {
  if (!organizationId || !domain) {
    io.stderr.write(`verify-domain needs --organization and --domain.\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (!isUuid(organizationId)) {
    io.stderr.write(`--organization must be an organization id (a UUID), not ${JSON.stringify(String(organizationId).slice(0, 100))}.\n`);
    return EXIT.usage;
  }
  return withContext(config, io, 'verify-domain', async (app) => {
    await migrate(app, io);
    try {
      const verified = await app.get(IdentityProviderSettings).verifyDomainAsOperator(organizationId, domain, { actorType: 'cli', actorId: null });
      io.stdout.write(`${verified.domain} is verified for organization ${organizationId} (since ${verified.verifiedAt?.toISOString()}).\n`);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof DomainError) {
        io.stderr.write(`${error.message}\n`);
        return error.kind === 'invalid_input' ? EXIT.usage : EXIT.failed;
      }
      throw error;
    }
  });
}

/**
 * `sso-require-off` and `identity-provider-disconnect --organization`: the operator's way back
 * into an organisation whose identity provider broke while "require single sign-on" was on.
 */
async function identityProviderCommand(
  command: 'sso-require-off' | 'identity-provider-disconnect',
  config: AppConfig,
  organizationId: string | undefined,
  io: CliIo,
): Promise<number> {
  if (!organizationId) {
    io.stderr.write(`${command} needs --organization.\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (!isUuid(organizationId)) {
    io.stderr.write(`--organization must be an organization id (a UUID), not ${JSON.stringify(String(organizationId).slice(0, 100))}.\n`);
    return EXIT.usage;
  }
  return withContext(config, io, command, async (app) => {
    await migrate(app, io);
    const settings = app.get(IdentityProviderSettings);
    const actor = { actorType: 'cli', actorId: null };
    try {
      if (command === 'sso-require-off') {
        const outcome = await settings.turnOffRequireSso(organizationId, actor);
        io.stdout.write(
          outcome.wasOn
            ? `Single sign-on is no longer required in organization ${organizationId}: password sessions open it again. The identity provider ${outcome.issuer} stays connected.\n`
            : `Single sign-on was not required in organization ${organizationId}; nothing changed.\n`,
        );
      } else {
        await settings.remove(organizationId, actor);
        io.stdout.write(`The identity provider of organization ${organizationId} is disconnected and its email-domain claims are deleted.\n`);
      }
      return EXIT.ok;
    } catch (error) {
      if (error instanceof NotFoundError) {
        io.stderr.write(`Organization ${organizationId} has no identity provider.\n`);
        return EXIT.failed;
      }
      if (error instanceof DomainError) {
        io.stderr.write(`${error.message}\n`);
        return EXIT.failed;
      }
      throw error;
    }
  });
}

async function migrate(app: INestApplicationContext, io: CliIo): Promise<void> {
  const applied = await runMigrations(app.get(DataSource));
  io.stdout.write(
    applied.length ? `Applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}\n` : 'Database schema is up to date.\n',
  );
}

/** What to do instead of a command that needs the embedded database while the service holds it. */
const WHILE_THE_SERVICE_RUNS: Record<
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
async function withContext(
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

/** ADMIN_PASSWORD, else standard input: typed without echo on a terminal, else its first line. */
async function readPassword(io: CliIo): Promise<string> {
  if (io.env.ADMIN_PASSWORD) return io.env.ADMIN_PASSWORD;
  if (io.stdin.isTTY) {
    const muted = new Writable({ write: (_chunk, _enc, done) => done() });
    const rl = createInterface({ input: io.stdin, output: muted, terminal: true });
    try {
      io.stderr.write('Password for the new admin: ');
      const first = await rl.question('');
      io.stderr.write('\nRepeat the password: ');
      const second = await rl.question('');
      io.stderr.write('\n');
      return first === second ? first : '';
    } finally {
      rl.close();
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}
