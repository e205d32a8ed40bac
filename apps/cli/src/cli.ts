import { auditVerify } from './audit-verify';
import { releaseEmail } from './release-email';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AppConfig, ConfigValidationError } from '@app/config';
import { PasswordResetService, AccountsService, EmailTakenError, SignupDto, SsoRequiredForDomainError } from '@app/people';
import { UserDirectory } from '@app/tenancy';
import { backup, restore } from './backup';
import { secretsRotate } from './secrets-rotate';
import { type CliIo, EXIT, migrate, withContext } from './cli-context';
import { identityProviderCommand, verifyDomain } from './identity-commands';
import { USAGE } from './usage';

export { type CliIo, dataFolderBusyMessage, EXIT } from './cli-context';

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
