import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGatewayProcess, spawnGateway } from './helpers/gateway-process';
import { freePort } from './helpers/postgres-server';

/** How long a refusing start may take before it is taken for hung and killed; within the tests' timeout. */
const REFUSAL_GUARD_MS = 100_000;
jest.setTimeout(120_000);
/** How long a line the start logs just after listening may take to reach the pipe (polled: usually milliseconds). */
const LOG_LINE_WAIT_MS = 30_000;

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
    // Only a guard against a start that hangs: the refusal comes after the whole entry point is
    // compiled on the fly, which takes far longer than usual on a machine busy with other work
    // (a 30 s guard killed refusals there, and the test read exit code null).
    const timer = setTimeout(() => child.kill('SIGKILL'), REFUSAL_GUARD_MS);
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

  it('refuses in production a session secret and a database password published in the repository, without printing them', async () => {
    const published = 'change-me-to-48-random-bytes-base64-encoded-at-least-32-characters';
    const { code, stdout, stderr } = await runGateway({
      NODE_ENV: 'production',
      BASE_URL: 'https://gw.example.com',
      SESSION_SECRET: published,
      DATABASE_URL: 'postgres://gateway:gateway@127.0.0.1:1/gateway',
    });
    expect(code).toBe(78);
    expect(stderr).toContain('Agent Gateway refused to start.');
    expect(stderr).toContain('SESSION_SECRET=(hidden): it is a value published in the Agent Gateway repository');
    expect(stderr).toContain('DATABASE_URL=(hidden): its password is a value published in the Agent Gateway repository');
    expect(stderr).not.toContain(published);
    expect(stderr).not.toContain('gateway:gateway');
    expect(stdout).not.toContain('listening');
  });

  it('never prints a refused secret', async () => {
    const { code, stderr } = await runGateway({ SESSION_SECRET: 'too-short-secret-value' });
    expect(code).toBe(78);
    expect(stderr).toContain('SESSION_SECRET=(hidden)');
    expect(stderr).not.toContain('too-short-secret-value');
  });
});

describe('BASE_URL: refused when missing in production; logged as the URL clients must use elsewhere', () => {
  it('production without BASE_URL refuses to start with one sentence', async () => {
    const { code, stdout, stderr } = await runGateway({ NODE_ENV: 'production', SESSION_SECRET: 'a-production-secret-of-at-least-32-characters', SECRETS_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}` });
    expect(code).toBe(78);
    expect(stderr).toBe(
      'Agent Gateway refused to start. BASE_URL must be set when NODE_ENV=production: it is the OAuth issuer and the root of every URL ' +
        'in the discovery documents, so set it to the public URL clients use (for example BASE_URL=https://gateway.example.com).\n',
    );
    expect(stdout).not.toContain('listening');
  });

  it('without BASE_URL outside production, the start logs the URL clients must use, and the discovery documents use exactly it', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'ag-base-url-'));
    const gateway = await startGatewayProcess(port, { DATA_DIR: dataDir });
    try {
      // The line is logged just after listening, so readiness can answer before it is read.
      for (const until = Date.now() + LOG_LINE_WAIT_MS; !gateway.stdout().includes('BASE_URL is not set') && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const logged = /BASE_URL is not set: clients must use (\S+) \(/.exec(gateway.stdout());
      expect(logged?.[1]).toBe(`http://localhost:${port}`);
      const as = (await (await fetch(`${gateway.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string; token_endpoint: string };
      const pr = (await (await fetch(`${gateway.url}/.well-known/oauth-protected-resource/api/mcp`)).json()) as { resource: string; authorization_servers: string[] };
      expect(as.issuer).toBe(logged![1]);
      expect(as.token_endpoint.startsWith(`${logged![1]}/`)).toBe(true);
      expect(pr.resource).toBe(`${logged![1]}/api/mcp`);
      expect(pr.authorization_servers).toEqual([logged![1]]);
    } finally {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('at LOG_LEVEL=info the start does not list every route (those lines are debug)', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'ag-start-log-'));
    const gateway = await startGatewayProcess(port, { DATA_DIR: dataDir, BASE_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'info' });
    try {
      // The start's last line reaches the pipe shortly after /health/ready answers: wait for it.
      for (const until = Date.now() + LOG_LINE_WAIT_MS; !gateway.stdout().includes('"context":"NestApplication"') && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const lines = gateway.stdout().split('\n').filter(Boolean);
      expect(lines.some((l) => l.includes('"context":"NestApplication"'))).toBe(true);
      expect(lines.filter((l) => /"context":"(RouterExplorer|RoutesResolver)"/.test(l))).toEqual([]);
    } finally {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('with BASE_URL set, nothing about it is logged', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'ag-base-url-'));
    const gateway = await startGatewayProcess(port, { DATA_DIR: dataDir, BASE_URL: `http://127.0.0.1:${port}` });
    try {
      expect(gateway.stdout()).not.toContain('BASE_URL is not set');
      const as = (await (await fetch(`${gateway.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
      expect(as.issuer).toBe(`http://127.0.0.1:${port}`);
    } finally {
      await gateway.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
