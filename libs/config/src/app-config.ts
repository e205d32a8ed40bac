import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EnvironmentVariables, LogLevel, parseOutboundAllowHosts, parseSecretsKeys, type SecretsKey, splitList, validateEnvironment } from './env.schema';

/**
 * The typed, validated configuration the service runs with. Built once at start-up from the
 * environment (plus overrides in tests); every URL in the discovery documents derives from
 * `baseUrl`, which never ends with a slash.
 */
export class AppConfig {
  readonly nodeEnv: EnvironmentVariables['NODE_ENV'];
  readonly port: number;
  readonly host: string;
  /** `BASE_URL` without a trailing slash. It is also the OAuth issuer. */
  readonly baseUrl: string;
  /** Whether `BASE_URL` was set (else `baseUrl` is the default `http://localhost:$PORT`; production refuses to start). */
  readonly baseUrlConfigured: boolean;
  readonly issuer: string;
  readonly mcpResourceUrl: string;
  readonly protectedResourceMetadataUrl: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly databasePoolSize: number;
  /** Prepare the request path's hot reads by name on PostgreSQL (off behind a pooler that cannot keep them). */
  readonly databasePreparedStatements: boolean;
  /** The request path's pipelined statements: how long one may go unanswered before it fails as "unavailable" (503), in ms. */
  readonly databaseStatementTimeoutMs: number;
  /** Statements in flight on one pipelined connection beyond which new ones go to the pool. */
  readonly databasePipelineMaxQueued: number;
  /** The embedded database's shared buffers in MB (PostgreSQL's `shared_buffers`); unset, sized to the data at each start. */
  readonly embeddedSharedBuffersMb: number | undefined;
  readonly sessionSecret: string;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  readonly authCodeTtlSeconds: number;
  readonly sessionTtlSeconds: number;
  readonly refreshReuseGraceSeconds: number;
  readonly signupEnabled: boolean;
  /** Exact origins allowed to call `/api/mcp` from a browser; `*` allows any. */
  readonly mcpAllowedOrigins: readonly string[];
  readonly trustProxy: boolean;
  readonly logLevel: LogLevel;
  readonly registrationRateLimitPerMinute: number;
  /** Failed logins for one email from one IP address within `loginFailureWindowSeconds` before further attempts from there get 429. */
  readonly loginMaxFailuresPerEmailAndIp: number;
  /** Failed logins for one email from every address together within the window before further attempts get 429 (the higher ceiling). */
  readonly loginMaxFailuresPerEmail: number;
  /** Failed logins from one IP address within the same window before further attempts get 429. */
  readonly loginMaxFailuresPerIp: number;
  readonly loginFailureWindowSeconds: number;
  /** Failed token requests for one client_id from one IP address within `tokenFailureWindowSeconds` before that address gets 429 for that client. */
  readonly tokenMaxFailuresPerClientAndIp: number;
  /** Failed authentications of one confidential client, from anywhere, within the window before further failed ones answer 429. */
  readonly tokenMaxAuthFailuresPerClient: number;
  /** ID-JAGs one person may trade for one client in one organisation per hour (jwt-bearer grant). */
  readonly idJagMaxTradesPerHour: number;
  /** Failed revocation requests for one client_id (or none) from one IP address within `tokenFailureWindowSeconds` before that address gets 429 for that client. */
  readonly revocationMaxFailuresPerClientAndIp: number;
  readonly tokenFailureWindowSeconds: number;
  /** Sign-ups (REST and the HTML page) per IP address per hour. */
  readonly signupRateLimitPerHour: number;
  readonly ssoStartsPerIpPerMinute: number;
  readonly ssoCallbacksPerIpPerMinute: number;
  /** How often expired OAuth rows and old rate-limit counters are deleted; 0 never. */
  readonly cleanupIntervalSeconds: number;
  /** Development and tests only: `http` and loopback `client_id` metadata-document URLs. */
  readonly clientMetadataAllowLoopback: boolean;
  /** `IDENTITY_PROVIDER_ALLOW_LOOPBACK` or `OUTBOUND_ALLOW_LOOPBACK`: development and tests only. */
  readonly identityProviderAllowLoopback: boolean;
  /** `OUTBOUND_ALLOW_HOSTS`, lower case: host names (or `host:port`) whose private addresses identity provider fetches may reach. */
  readonly outboundAllowHosts: readonly string[];
  /** `OUTBOUND_ALLOW_LOOPBACK`: development only. */
  readonly outboundAllowLoopback: boolean;
  /**
   * `SECRETS_KEYS` in order, the first current (SPEC §10, "Stored outbound secrets"); where it is
   * unset (never in production), one key generated once into DATA_DIR, as SESSION_SECRET is.
   */
  readonly secretsKeys: readonly SecretsKey[];
  /** The longest wait between two attempts to deliver to an audit sink that refuses. */
  readonly auditSinkMaxBackoffSeconds: number;
  /** `AUDIT_RETENTION_DAYS`: how long audit records are kept (an organisation may keep them longer). */
  readonly auditRetentionDays: number;
  /** `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`: where the operator's OTLP stream of the audit chains goes; undefined: no stream. */
  readonly auditOtlpLogsEndpoint: string | undefined;
  /** Client ID Metadata Document fetches per requesting IP address, and per target host, per minute. */
  readonly clientMetadataFetchesPerIpPerMinute: number;
  readonly clientMetadataFetchesPerHostPerMinute: number;
  /** After SIGTERM, seconds during which readiness answers 503 while requests are still served. */
  readonly shutdownDelaySeconds: number;
  /** Then, at most this long for requests in flight to finish before connections are cut. */
  readonly shutdownDrainSeconds: number;
  /** `/api/mcp` JSON-RPC requests per agent grant per window, across instances (0: unlimited). */
  readonly mcpRateLimitPerToken: number;
  /** `/api/mcp` JSON-RPC requests per organisation per window, across instances (0: unlimited). */
  readonly mcpRateLimitPerOrganization: number;
  /** The length of those windows. */
  readonly mcpRateLimitWindowSeconds: number;
  /** Tool calls run at once by this instance, shared fairly between organisations (0: no bound). */
  readonly mcpMaxConcurrentToolCalls: number;
  /** Bearer token that opens `/metrics` on the main port; unset: not served there. */
  readonly metricsToken: string | undefined;
  /** Port of a separate metrics listener on 127.0.0.1 (no token needed there); unset: none. */
  readonly metricsPort: number | undefined;
  /**
   * Private-use redirect URI schemes without a dot that OAuth clients may register, lower case
   * (a scheme with a dot is accepted anyway; the dangerous ones never are).
   */
  readonly oauthExtraRedirectSchemes: readonly string[];

  constructor(env: EnvironmentVariables) {
    this.nodeEnv = env.NODE_ENV;
    this.port = env.PORT;
    this.host = env.HOST;
    this.baseUrl = (env.BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
    this.baseUrlConfigured = env.BASE_URL !== undefined;
    this.issuer = this.baseUrl;
    this.mcpResourceUrl = `${this.baseUrl}/api/mcp`;
    this.protectedResourceMetadataUrl = `${this.baseUrl}/.well-known/oauth-protected-resource/api/mcp`;
    this.databaseUrl = env.DATABASE_URL;
    this.dataDir = resolve(env.DATA_DIR);
    this.databasePoolSize = env.DATABASE_POOL_SIZE;
    this.databasePreparedStatements = env.DATABASE_PREPARED_STATEMENTS;
    this.databaseStatementTimeoutMs = env.DATABASE_STATEMENT_TIMEOUT_MS;
    this.databasePipelineMaxQueued = env.DATABASE_PIPELINE_MAX_QUEUED;
    this.embeddedSharedBuffersMb = env.EMBEDDED_SHARED_BUFFERS_MB;
    this.sessionSecret = env.SESSION_SECRET ?? developmentSessionSecret(this.dataDir);
    this.accessTokenTtlSeconds = env.ACCESS_TOKEN_TTL_SECONDS;
    this.refreshTokenTtlSeconds = env.REFRESH_TOKEN_TTL_SECONDS;
    this.authCodeTtlSeconds = env.AUTH_CODE_TTL_SECONDS;
    this.sessionTtlSeconds = env.SESSION_TTL_SECONDS;
    this.refreshReuseGraceSeconds = env.REFRESH_REUSE_GRACE_SECONDS;
    this.signupEnabled = env.SIGNUP_ENABLED;
    this.mcpAllowedOrigins = env.MCP_ALLOWED_ORIGINS
      ? splitList(env.MCP_ALLOWED_ORIGINS)
      : [new URL(this.baseUrl).origin];
    this.trustProxy = env.TRUST_PROXY;
    this.logLevel = env.LOG_LEVEL;
    this.registrationRateLimitPerMinute = env.REGISTRATION_RATE_LIMIT_PER_MINUTE;
    this.loginMaxFailuresPerEmailAndIp = env.LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP;
    this.loginMaxFailuresPerEmail = env.LOGIN_MAX_FAILURES_PER_EMAIL;
    this.loginMaxFailuresPerIp = env.LOGIN_MAX_FAILURES_PER_IP;
    this.loginFailureWindowSeconds = env.LOGIN_FAILURE_WINDOW_SECONDS;
    this.tokenMaxFailuresPerClientAndIp = env.TOKEN_MAX_FAILURES_PER_CLIENT_AND_IP;
    this.tokenMaxAuthFailuresPerClient = env.TOKEN_MAX_AUTH_FAILURES_PER_CLIENT;
    this.idJagMaxTradesPerHour = env.ID_JAG_MAX_TRADES_PER_HOUR;
    this.revocationMaxFailuresPerClientAndIp = env.REVOCATION_MAX_FAILURES_PER_CLIENT_AND_IP;
    this.tokenFailureWindowSeconds = env.TOKEN_FAILURE_WINDOW_SECONDS;
    this.signupRateLimitPerHour = env.SIGNUP_RATE_LIMIT_PER_HOUR;
    this.ssoStartsPerIpPerMinute = env.SSO_STARTS_PER_IP_PER_MINUTE;
    this.ssoCallbacksPerIpPerMinute = env.SSO_CALLBACKS_PER_IP_PER_MINUTE;
    this.cleanupIntervalSeconds = env.CLEANUP_INTERVAL_SECONDS;
    this.clientMetadataAllowLoopback = env.CLIENT_METADATA_ALLOW_LOOPBACK;
    this.identityProviderAllowLoopback = env.IDENTITY_PROVIDER_ALLOW_LOOPBACK || env.OUTBOUND_ALLOW_LOOPBACK;
    this.outboundAllowHosts = parseOutboundAllowHosts(env.OUTBOUND_ALLOW_HOSTS).hosts;
    this.outboundAllowLoopback = env.OUTBOUND_ALLOW_LOOPBACK;
    this.secretsKeys = env.SECRETS_KEYS === undefined ? [developmentSecretsKey(this.dataDir)] : parseSecretsKeys(env.SECRETS_KEYS).keys;
    this.auditSinkMaxBackoffSeconds = env.AUDIT_SINK_MAX_BACKOFF_SECONDS;
    this.auditRetentionDays = env.AUDIT_RETENTION_DAYS;
    this.auditOtlpLogsEndpoint = env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT || undefined;
    this.clientMetadataFetchesPerIpPerMinute = env.CLIENT_METADATA_FETCHES_PER_IP_PER_MINUTE;
    this.clientMetadataFetchesPerHostPerMinute = env.CLIENT_METADATA_FETCHES_PER_HOST_PER_MINUTE;
    this.shutdownDelaySeconds = env.SHUTDOWN_DELAY_SECONDS ?? (env.NODE_ENV === 'production' ? 5 : 0);
    this.shutdownDrainSeconds = env.SHUTDOWN_DRAIN_SECONDS;
    this.mcpRateLimitPerToken = env.MCP_RATE_LIMIT_PER_TOKEN;
    this.mcpRateLimitPerOrganization = env.MCP_RATE_LIMIT_PER_ORGANIZATION;
    this.mcpRateLimitWindowSeconds = env.MCP_RATE_LIMIT_WINDOW_SECONDS;
    // The embedded database serves one connection.
    this.mcpMaxConcurrentToolCalls = env.MCP_MAX_CONCURRENT_TOOL_CALLS ?? 2 * (env.DATABASE_URL ? env.DATABASE_POOL_SIZE : 1);
    this.metricsToken = env.METRICS_TOKEN;
    this.metricsPort = env.METRICS_PORT;
    this.oauthExtraRedirectSchemes = splitList(env.OAUTH_EXTRA_REDIRECT_SCHEMES).map((s) => s.toLowerCase());
  }

  /** Reads and validates the environment; throws a `ConfigValidationError` naming every bad variable. */
  static fromEnvironment(raw: Record<string, string | undefined> = process.env): AppConfig {
    return new AppConfig(validateEnvironment(raw));
  }

  isOriginAllowed(origin: string): boolean {
    return this.mcpAllowedOrigins.includes('*') || this.mcpAllowedOrigins.includes(origin);
  }
}

/** The id of the key generated into DATA_DIR where SECRETS_KEYS is unset. */
export const GENERATED_SECRETS_KEY_ID = 'local';

/**
 * Outside production a missing SECRETS_KEYS is one key generated once and kept in DATA_DIR
 * (`secrets-key`, mode 0600), so stored outbound secrets survive a restart without any setup.
 */
function developmentSecretsKey(dataDir: string): SecretsKey {
  const file = join(dataDir, 'secrets-key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length === 32) return { id: GENERATED_SECRETS_KEY_ID, key };
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { id: GENERATED_SECRETS_KEY_ID, key };
}

/**
 * Outside production a missing SESSION_SECRET is generated once and kept in DATA_DIR, so
 * sessions survive a restart without any setup.
 */
function developmentSessionSecret(dataDir: string): string {
  const file = join(dataDir, 'session-secret');
  if (existsSync(file)) {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}
