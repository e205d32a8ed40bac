import { existsSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { runCli } from './cli';

/** The admin command line: `migrate`, `create-admin` (see `help`). */
async function main(): Promise<void> {
  // What the command line creates (the embedded database's files, backups) is private to its user.
  process.umask(0o077);
  if (existsSync('.env')) process.loadEnvFile('.env');
  Logger.overrideLogger(['error', 'warn']);
  process.exitCode = await runCli(process.argv.slice(2), {
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`agent-gateway-cli failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
