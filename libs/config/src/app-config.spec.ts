import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from './app-config';
import { ConfigValidationError } from './env.schema';

describe('AppConfig.fromEnvironment', () => {
  const base = { DATA_DIR: mkdtempSync(join(tmpdir(), 'ag-config-')), NODE_ENV: 'test' };

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
  ])('refuses %s=%s and names it', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0].startsWith(name)).toBe(true);
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

  it('derives the MCP URLs from BASE_URL without a trailing slash', () => {
    const config = AppConfig.fromEnvironment({ ...base, BASE_URL: 'https://gw.example.com/' });
    expect(config.baseUrl).toBe('https://gw.example.com');
    expect(config.issuer).toBe('https://gw.example.com');
    expect(config.mcpResourceUrl).toBe('https://gw.example.com/api/mcp');
    expect(config.protectedResourceMetadataUrl).toBe('https://gw.example.com/.well-known/oauth-protected-resource/api/mcp');
    expect(config.mcpAllowedOrigins).toEqual(['https://gw.example.com']);
  });
});
