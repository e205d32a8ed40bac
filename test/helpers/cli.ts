import { Readable } from 'node:stream';
import { CliIo, runCli } from '../../apps/cli/src/cli';

/** Runs the command line in this process with `env` and `stdin`, and captures what it prints. */
export async function runCliCaptured(argv: string[], env: Record<string, string>, stdin = '') {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    env,
    stdin: Readable.from(stdin ? [stdin] : []),
    stdout: { write: (chunk: string | Uint8Array) => ((stdout += String(chunk)), true) },
    stderr: { write: (chunk: string | Uint8Array) => ((stderr += String(chunk)), true) },
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
