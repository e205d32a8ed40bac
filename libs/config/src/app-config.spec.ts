import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from './app-config';
import { ConfigValidationError } from './env.schema';

describe('AppConfig.fromEnvironment', () => {
  const base = { DATA_DIR: mkdtempSync(join(tmpdir(), 'ag-config-')), NODE_ENV: 'test' };
  const PRODUCTION_KEYS = { SECRETS_KEYS: `k1:${Buffer.alloc(32, 9).toString('base64')}` };
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
    ['AUDIT_RETENTION_DAYS', '0'],
    ['OTEL_EXPORTER_OTLP_LOGS_ENDPOINT', 'otel-collector:4318/v1/logs'],
    ['OTEL_EXPORTER_OTLP_LOGS_ENDPOINT', 'grpc://otel-collector:4317'],
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

  it('streams the audit chains to OTEL_EXPORTER_OTLP_LOGS_ENDPOINT when set, and not otherwise', () => {
    expect(AppConfig.fromEnvironment({ ...base, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://otel-collector:4318/v1/logs' }).auditOtlpLogsEndpoint).toBe('http://otel-collector:4318/v1/logs');
    expect(AppConfig.fromEnvironment({ ...base, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: '' }).auditOtlpLogsEndpoint).toBeUndefined();
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({ PORT: 'abc', LOG_LEVEL: 'loud', SESSION_SECRET: 'short' });
    expect(problems.map((p) => p.split(/[=:]/)[0]).sort()).toEqual(['LOG_LEVEL', 'PORT', 'SESSION_SECRET']);
    expect(problems.join('\n')).not.toContain('short');
  });

  it('requires SESSION_SECRET in production', () => {
    expect(problemsOf({ NODE_ENV: 'production', ...PRODUCTION_KEYS })).toEqual([expect.stringMatching(/^SESSION_SECRET: required when NODE_ENV=production/)]);
  });

  it('requires SECRETS_KEYS in production, naming how to make one', () => {
    expect(problemsOf({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40) })).toEqual([
      'SECRETS_KEYS: required when NODE_ENV=production (k1:<base64 of 32 random bytes>, e.g. k1:$(openssl rand -base64 32)); it encrypts the stored outbound secrets',
    ]);
  });

  it('refuses CLIENT_METADATA_ALLOW_LOOPBACK in production and allows it elsewhere', () => {
    const secret = 'x'.repeat(40);
    expect(problemsOf({ NODE_ENV: 'production', SESSION_SECRET: secret, ...PRODUCTION_KEYS, CLIENT_METADATA_ALLOW_LOOPBACK: 'true' })).toEqual([
      expect.stringMatching(/^CLIENT_METADATA_ALLOW_LOOPBACK=true: not allowed when NODE_ENV=production/),
    ]);
    expect(AppConfig.fromEnvironment({ ...base, NODE_ENV: 'production', SESSION_SECRET: secret, ...PRODUCTION_KEYS }).clientMetadataAllowLoopback).toBe(false);
    expect(AppConfig.fromEnvironment({ ...base, CLIENT_METADATA_ALLOW_LOOPBACK: 'true' }).clientMetadataAllowLoopback).toBe(true);
    expect(AppConfig.fromEnvironment({ ...base }).clientMetadataAllowLoopback).toBe(false);
  });

  it('never echoes a refused METRICS_TOKEN; METRICS_PORT must differ from PORT', () => {
    const problems = problemsOf({ METRICS_TOKEN: 'too-short-metrics-token', METRICS_PORT: '3000' });
    expect(problems).toEqual(['METRICS_TOKEN=(hidden): METRICS_TOKEN must be longer than or equal to 32 characters', expect.stringMatching(/^METRICS_PORT=3000: must differ from PORT/)]);
    expect(problems.join('\n')).not.toContain('too-short-metrics-token');
  });

  it('waits 5 s after SIGTERM in production and none elsewhere, unless told', () => {
    const secret = { SESSION_SECRET: 'x'.repeat(32), ...PRODUCTION_KEYS };
    expect(AppConfig.fromEnvironment({ ...base, ...secret, NODE_ENV: 'production' }).shutdownDelaySeconds).toBe(5);
    expect(AppConfig.fromEnvironment({ ...base }).shutdownDelaySeconds).toBe(0);
    expect(AppConfig.fromEnvironment({ ...base, NODE_ENV: 'production', ...secret, SHUTDOWN_DELAY_SECONDS: '0' }).shutdownDelaySeconds).toBe(0);
    expect(AppConfig.fromEnvironment({ ...base }).shutdownDrainSeconds).toBe(10);
  });

  describe('SECRETS_KEYS (SPEC §10, "Stored outbound secrets")', () => {
    const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');

    it('reads the ring in order, the first current; unset (never in production), one key generated into DATA_DIR and kept', () => {
      const config = AppConfig.fromEnvironment({ ...base, SECRETS_KEYS: `k2:${key(2)}, k1:${key(1)}` });
      expect(config.secretsKeys.map((k) => [k.id, k.key.equals(Buffer.alloc(32, k.id === 'k2' ? 2 : 1))])).toEqual([
        ['k2', true],
        ['k1', true],
      ]);
      const dataDir = mkdtempSync(join(tmpdir(), 'ag-keys-'));
      try {
        const [generated] = AppConfig.fromEnvironment({ ...base, DATA_DIR: dataDir }).secretsKeys;
        expect(generated.id).toBe('local');
        expect(generated.key).toHaveLength(32);
        expect(statSync(join(dataDir, 'secrets-key')).mode & 0o777).toBe(0o600);
        expect(AppConfig.fromEnvironment({ ...base, DATA_DIR: dataDir }).secretsKeys).toEqual([generated]);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it.each([
      ['no id', key(1), /entry 1 must start with a key id/],
      ['a short key', `k1:${Buffer.alloc(16, 1).toString('base64')}`, /entry 1 \(id k1\): the key must be 32 bytes in base64/],
      ['not base64', 'k1:not base64 at all!', /entry 1 \(id k1\): the key must be 32 bytes/],
      ['an id twice', `k1:${key(1)},k1:${key(2)}`, /entry 2: the key id k1 appears twice/],
      ['nothing', ' , ', /no key/],
    ])('refuses %s and never echoes the value', (_what, value, message) => {
      const problems = problemsOf({ SECRETS_KEYS: value });
      expect(problems).toEqual([expect.stringMatching(message)]);
      expect(problems[0].startsWith('SECRETS_KEYS')).toBe(true);
      if (value.length > 10) expect(problems.join('\n')).not.toContain(value.split(',')[0].split(':').pop());
    });
  });

  describe('OUTBOUND_ALLOW_HOSTS and OUTBOUND_ALLOW_LOOPBACK (SPEC §10, "Reaching private and loopback hosts")', () => {
    it('reads host names and host:port, lower-cased', () => {
      const config = AppConfig.fromEnvironment({ ...base, OUTBOUND_ALLOW_HOSTS: 'IdP.Corp.Example, idp2.corp.example:8443' });
      expect(config.outboundAllowHosts).toEqual(['idp.corp.example', 'idp2.corp.example:8443']);
      expect(AppConfig.fromEnvironment(base).outboundAllowHosts).toEqual([]);
    });

    it.each(['10.0.0.5', '*.corp.example', 'https://idp.corp.example', 'idp.corp.example:99999', 'idp corp'])('refuses %s, naming it', (entry) => {
      expect(problemsOf({ OUTBOUND_ALLOW_HOSTS: `idp.corp.example,${entry}` })).toEqual([
        `OUTBOUND_ALLOW_HOSTS: ${JSON.stringify(entry)} is not a host name or host:port (such as idp.corp.example or idp.corp.example:8443; IP addresses and wildcards are not accepted)`,
      ]);
    });

    it('refuses OUTBOUND_ALLOW_LOOPBACK in production; elsewhere it lets identity providers use loopback addresses', () => {
      expect(problemsOf({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40), ...PRODUCTION_KEYS, OUTBOUND_ALLOW_LOOPBACK: 'true' })).toEqual([
        expect.stringMatching(/^OUTBOUND_ALLOW_LOOPBACK=true: not allowed when NODE_ENV=production/),
      ]);
      const config = AppConfig.fromEnvironment({ ...base, OUTBOUND_ALLOW_LOOPBACK: 'true' });
      expect([config.outboundAllowLoopback, config.identityProviderAllowLoopback, config.clientMetadataAllowLoopback]).toEqual([true, true, false]);
    });
  });

  it('refuses in production, and only there, a secret the repository publishes, without echoing it', () => {
    const published = {
      SESSION_SECRET: 'change-me-to-48-random-bytes-base64-encoded-at-least-32-characters',
      METRICS_TOKEN: 'change-me-to-a-long-random-metrics-token-of-32-characters',
      DATABASE_URL: 'postgres://gateway:gateway@db.internal:5432/gateway',
    };
    const problems = problemsOf({ NODE_ENV: 'production', ...PRODUCTION_KEYS, ...published });
    expect(problems.map((p) => p.split('=')[0])).toEqual(['SESSION_SECRET', 'METRICS_TOKEN', 'DATABASE_URL']);
    for (const problem of problems) expect(problem).toMatch(/=\(hidden\): .*a value published in the Agent Gateway repository/);
    expect(problems.join('\n')).not.toMatch(/change-me|gateway@/);
    expect(AppConfig.fromEnvironment({ ...base, ...published }).sessionSecret).toBe(published.SESSION_SECRET);
    const own = { SESSION_SECRET: 'y'.repeat(48), DATABASE_URL: 'postgres://gateway:s3cr3t-of-our-own@db.internal:5432/gateway' };
    expect(AppConfig.fromEnvironment({ ...base, NODE_ENV: 'production', ...PRODUCTION_KEYS, ...own }).sessionSecret).toBe(own.SESSION_SECRET);
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
