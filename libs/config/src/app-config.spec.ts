import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from './app-config';
import { ConfigValidationError } from './env.schema';

describe('AppConfig.fromEnvironment', () => {
  const base = { DATA_DIR: mkdtempSync(join(tmpdir(), 'ag-config-')), NODE_ENV: 'test' };
  afterAll(() => rmSync(base.DATA_DIR, { recursive: true, force: true }));

  function problemsOf(env: Record<string, string>): string[] {
    try {
      AppConfig.fromEnvironment({ ...base, ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigValidationError);
      return (error as ConfigValidationError).problems;
    }
    throw new Error('expected the configuration to be refused');
  }

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['BASE_URL', 'not a url'],
    ['BASE_URL', 'ftp://example.com'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['ACCESS_TOKEN_TTL_SECONDS', '0'],
    ['SIGNUP_ENABLED', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['MCP_ALLOWED_ORIGINS', 'https://app.example.com/path'],
    ['TRUST_PROXY', 'yes please'],
    ['SHUTDOWN_DELAY_SECONDS', '-1'],
    ['SHUTDOWN_DRAIN_SECONDS', '0'],
    ['METRICS_PORT', 'abc'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '50'],
    ['DATABASE_PIPELINE_MAX_QUEUED', '0'],
  ])('refuses %s=%s and names it', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0].startsWith(name)).toBe(true);
  });

  it("bounds the read pipeline: a 5 s statement timeout and 100 statements in flight per connection unless set", () => {
    const defaults = AppConfig.fromEnvironment(base);
    expect([defaults.databaseStatementTimeoutMs, defaults.databasePipelineMaxQueued]).toEqual([5000, 100]);
    const set = AppConfig.fromEnvironment({ ...base, DATABASE_STATEMENT_TIMEOUT_MS: '1500', DATABASE_PIPELINE_MAX_QUEUED: '8' });
    expect([set.databaseStatementTimeoutMs, set.databasePipelineMaxQueued]).toEqual([1500, 8]);
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({ PORT: 'abc', LOG_LEVEL: 'loud', SESSION_SECRET: 'short' });
    expect(problems.map((p) => p.split(/[=:]/)[0]).sort()).toEqual(['LOG_LEVEL', 'PORT', 'SESSION_SECRET']);
    expect(problems.join('\n')).not.toContain('short');
  });

  it('requires SESSION_SECRET in production', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([expect.stringMatching(/^SESSION_SECRET: required when NODE_ENV=production/)]);
  });

  it('refuses CLIENT_METADATA_ALLOW_LOOPBACK in production and allows it elsewhere', () => {
    const secret = 'x'.repeat(40);
    expect(problemsOf({ NODE_ENV: 'production', SESSION_SECRET: secret, CLIENT_METADATA_ALLOW_LOOPBACK: 'true' })).toEqual([
      expect.stringMatching(/^CLIENT_METADATA_ALLOW_LOOPBACK=true: not allowed when NODE_ENV=production/),
    ]);
    expect(AppConfig.fromEnvironment({ ...base, NODE_ENV: 'production', SESSION_SECRET: secret }).clientMetadataAllowLoopback).toBe(false);
    expect(AppConfig.fromEnvironment({ ...base, CLIENT_METADATA_ALLOW_LOOPBACK: 'true' }).clientMetadataAllowLoopback).toBe(true);
    expect(AppConfig.fromEnvironment({ ...base }).clientMetadataAllowLoopback).toBe(false);
  });

  it('never echoes a refused METRICS_TOKEN; METRICS_PORT must differ from PORT', () => {
    const problems = problemsOf({ METRICS_TOKEN: 'too-short-metrics-token', METRICS_PORT: '3000' });
    expect(problems).toEqual(['METRICS_TOKEN=(hidden): METRICS_TOKEN must be longer than or equal to 32 characters', expect.stringMatching(/^METRICS_PORT=3000: must differ from PORT/)]);
    expect(problems.join('\n')).not.toContain('too-short-metrics-token');
  });

  it('waits 5 s after SIGTERM in production and none elsewhere, unless told', () => {
    const secret = { SESSION_SECRET: 'x'.repeat(32) };
    expect(AppConfig.fromEnvironment({ ...base, ...secret, NODE_ENV: 'production' }).shutdownDelaySeconds).toBe(5);
    expect(AppConfig.fromEnvironment({ ...base }).shutdownDelaySeconds).toBe(0);
    expect(AppConfig.fromEnvironment({ ...base, NODE_ENV: 'production', ...secret, SHUTDOWN_DELAY_SECONDS: '0' }).shutdownDelaySeconds).toBe(0);
    expect(AppConfig.fromEnvironment({ ...base }).shutdownDrainSeconds).toBe(10);
  });

  it('derives the MCP URLs from BASE_URL without a trailing slash', () => {
    const config = AppConfig.fromEnvironment({ ...base, BASE_URL: 'https://gw.example.com/' });
    expect(config.baseUrl).toBe('https://gw.example.com');
    expect(config.issuer).toBe('https://gw.example.com');
    expect(config.mcpResourceUrl).toBe('https://gw.example.com/api/mcp');
    expect(config.protectedResourceMetadataUrl).toBe('https://gw.example.com/.well-known/oauth-protected-resource/api/mcp');
    expect(config.mcpAllowedOrigins).toEqual(['https://gw.example.com']);
  });
});
