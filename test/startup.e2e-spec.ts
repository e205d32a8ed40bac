import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnGateway } from './helpers/gateway-process';

/**
 * Runs the real entry point (apps/gateway/src/main.ts, compiled on the fly by the swc require
 * hook, so no build is needed) in a child process with the given environment, from an empty
 * working directory (no .env), and reports how it ended.
 */
function runGateway(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'ag-start-'));
  return new Promise((resolve, reject) => {
    const child = spawnGateway(cwd, { LOG_LEVEL: 'silent', ...env });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      rmSync(cwd, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}

describe('start-up with a bad configuration value (SPEC §7)', () => {
  it('refuses to start, names the variable and exits with EX_CONFIG (78)', async () => {
    const { code, stdout, stderr } = await runGateway({ PORT: 'not-a-port', ACCESS_TOKEN_TTL_SECONDS: '-5' });
    expect(code).toBe(78);
    expect(stderr).toContain('Agent Gateway refused to start.');
    expect(stderr).toMatch(/PORT="not-a-port": /);
    expect(stderr).toMatch(/ACCESS_TOKEN_TTL_SECONDS="-5": /);
    expect(stdout).not.toContain('listening');
  });

  it('refuses CLIENT_METADATA_ALLOW_LOOPBACK=true in production', async () => {
    const { code, stdout, stderr } = await runGateway({
      NODE_ENV: 'production',
      SESSION_SECRET: 'a-production-secret-of-at-least-32-characters',
      CLIENT_METADATA_ALLOW_LOOPBACK: 'true',
    });
    expect(code).toBe(78);
    expect(stderr).toContain('CLIENT_METADATA_ALLOW_LOOPBACK=true: not allowed when NODE_ENV=production');
    expect(stderr).not.toContain('a-production-secret-of-at-least-32-characters');
    expect(stdout).not.toContain('listening');
  });

  it('never prints a refused secret', async () => {
    const { code, stderr } = await runGateway({ SESSION_SECRET: 'too-short-secret-value' });
    expect(code).toBe(78);
    expect(stderr).toContain('SESSION_SECRET=(hidden)');
    expect(stderr).not.toContain('too-short-secret-value');
  });
});
