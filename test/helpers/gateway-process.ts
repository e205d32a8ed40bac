import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_SECRETS_KEYS } from './test-app';

const ROOT = join(__dirname, '..', '..');

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process has written to standard output so far (its log lines). */
  stdout(): string;
  stop(): Promise<void>;
}

/**
 * Spawns the real entry point (`apps/gateway/src/main.ts`, compiled on the fly by the swc
 * require hook, so no build is needed) from the working directory `cwd` (no `.env` there),
 * with a minimal environment plus `env`.
 */
export function spawnGateway(cwd: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['-r', join(ROOT, 'test/helpers/register-ts.cjs'), join(ROOT, 'apps/gateway/src/main.ts')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: join(cwd, 'data'), SECRETS_KEYS: TEST_SECRETS_KEYS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The real entry point (`apps/gateway/src/main.ts`, compiled on the fly by the swc require hook,
 * so no build is needed) in its own process on 127.0.0.1, started from an empty working
 * directory. Resolves once `/health/ready` answers; stops with SIGTERM (SIGKILL after 10 s).
 */
export async function startGatewayProcess(port: number, env: Record<string, string>): Promise<GatewayProcess> {
  const cwd = mkdtempSync(join(tmpdir(), 'ag-proc-'));
  const child = spawnGateway(cwd, { LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(cwd, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${url}/health/ready`);
      if (res.ok) return { url, child, stdout: () => stdout, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`the gateway on port ${port} did not become ready: ${stderr.slice(-2000)}`);
}

/** A process's exit code and everything it printed, once it has closed (killed as hung after 100 s: a start compiled on the fly can take over 30 s on a busy machine). */
export function processEnded(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Makes `n` projects in an organisation over HTTP with an API key (each a recorded write), expecting 201 each. */
export async function createProjectsOver(url: string, orgId: string, apiKey: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${url}/api/organizations/${orgId}/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `P ${Math.random().toString(16).slice(2, 10)}` }),
    });
    if (res.status !== 201) throw new Error(`making a project answered ${res.status}: ${await res.text()}`);
  }
}
