import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AuthVariables } from './env/auth.env';
import { DatabaseVariables } from './env/database.env';
import { LimitVariables } from './env/limits.env';
import { ObservabilityVariables } from './env/observability.env';
import { OutboundVariables, parseOutboundAllowHosts } from './env/outbound.env';
import { parseSecretsKeys, publishedSecretProblems, SecretVariables } from './env/secrets.env';
import { ServerVariables } from './env/server.env';

export { LOG_LEVELS, type LogLevel } from './env/observability.env';
export { parseOutboundAllowHosts } from './env/outbound.env';
export { parseSecretsKeys, type SecretsKey } from './env/secrets.env';

/**
 * Every environment variable the service reads, one concern per file in `env/` (the server,
 * the database, sessions and OAuth, rate limits, observability, stored secrets, outbound reach). `.env.example` mirrors this
 * class one to one. Values arrive as strings; transforms turn them into numbers and booleans
 * before validation, so a non-numeric PORT fails validation instead of silently becoming NaN.
 */
export class EnvironmentVariables extends OutboundVariables(
  SecretVariables(ObservabilityVariables(LimitVariables(AuthVariables(DatabaseVariables(ServerVariables))))),
) {}

/** Never echoed in a refusal. */
const HIDDEN = new Set(['SESSION_SECRET', 'METRICS_TOKEN', 'SECRETS_KEYS']);

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

/** Validates the raw environment; throws one error naming every bad variable. */
export function validateEnvironment(raw: Record<string, unknown>): EnvironmentVariables {
  const known = Object.keys(new EnvironmentVariables());
  const picked: Record<string, unknown> = {};
  const optional = ['BASE_URL', 'DATABASE_URL', 'SESSION_SECRET', 'MCP_ALLOWED_ORIGINS', 'SHUTDOWN_DELAY_SECONDS', 'METRICS_TOKEN', 'METRICS_PORT'];
  for (const key of [...known, ...optional, 'SECRETS_KEYS', 'OUTBOUND_ALLOW_HOSTS']) {
    if (raw[key] !== undefined) picked[key] = raw[key];
  }
  const env = plainToInstance(EnvironmentVariables, picked, { exposeDefaultValues: true });
  const problems: string[] = [];
  for (const error of validateSync(env, { skipMissingProperties: false })) {
    const shown = HIDDEN.has(error.property) ? '(hidden)' : JSON.stringify(picked[error.property]);
    const reasons = Object.values(error.constraints ?? {}).join('; ');
    problems.push(`${error.property}=${shown}: ${reasons}`);
  }
  if (env.BASE_URL !== undefined) {
    const problem = checkUrl(env.BASE_URL, ['http:', 'https:']);
    if (problem) problems.push(`BASE_URL=${JSON.stringify(env.BASE_URL)}: ${problem}`);
    else if (/[?#]/.test(env.BASE_URL)) problems.push(`BASE_URL=${JSON.stringify(env.BASE_URL)}: must not carry a query or fragment`);
  }
  if (env.DATABASE_URL !== undefined) {
    const problem = checkUrl(env.DATABASE_URL, ['postgres:', 'postgresql:']);
    if (problem) problems.push(`DATABASE_URL=(hidden): ${problem}`);
  }
  if (env.MCP_ALLOWED_ORIGINS !== undefined) {
    for (const origin of splitList(env.MCP_ALLOWED_ORIGINS)) {
      if (origin === '*') continue;
      const problem = checkUrl(origin, ['http:', 'https:']);
      if (problem) problems.push(`MCP_ALLOWED_ORIGINS: ${JSON.stringify(origin)} ${problem}`);
      else if (new URL(origin).origin !== origin) {
        problems.push(`MCP_ALLOWED_ORIGINS: ${JSON.stringify(origin)} must be an origin such as https://app.example.com (no path or trailing slash)`);
      }
    }
  }
  if (env.NODE_ENV === 'production' && env.CLIENT_METADATA_ALLOW_LOOPBACK) {
    problems.push('CLIENT_METADATA_ALLOW_LOOPBACK=true: not allowed when NODE_ENV=production (it lets client_id URLs reach loopback addresses over http; development and tests only)');
  }
  if (env.NODE_ENV === 'production' && env.IDENTITY_PROVIDER_ALLOW_LOOPBACK) {
    problems.push('IDENTITY_PROVIDER_ALLOW_LOOPBACK=true: not allowed when NODE_ENV=production (it lets identity provider issuers reach loopback addresses over http; development and tests only)');
  }
  if (env.NODE_ENV === 'production' && env.OUTBOUND_ALLOW_LOOPBACK) {
    problems.push('OUTBOUND_ALLOW_LOOPBACK=true: not allowed when NODE_ENV=production (it lets identity providers be fetched from 127.0.0.1 and localhost over http; development and tests only)');
  }
  problems.push(...parseOutboundAllowHosts(env.OUTBOUND_ALLOW_HOSTS).problems);
  if (env.SECRETS_KEYS !== undefined) problems.push(...parseSecretsKeys(env.SECRETS_KEYS).problems);
  if (env.NODE_ENV === 'production') problems.push(...publishedSecretProblems(env));
  for (const scheme of splitList(env.OAUTH_EXTRA_REDIRECT_SCHEMES ?? '')) {
    if (!/^[a-z][a-z0-9+.-]*$/i.test(scheme)) {
      problems.push(`OAUTH_EXTRA_REDIRECT_SCHEMES: ${JSON.stringify(scheme)} is not a URI scheme (letters, digits, +, - and ., without the colon)`);
    }
  }
  if (env.NODE_ENV === 'production' && !env.SESSION_SECRET) {
    problems.push('SESSION_SECRET: required when NODE_ENV=production (at least 32 characters)');
  }
  if (env.NODE_ENV === 'production' && env.SECRETS_KEYS === undefined) {
    problems.push('SECRETS_KEYS: required when NODE_ENV=production (k1:<base64 of 32 random bytes>, e.g. k1:$(openssl rand -base64 32)); it encrypts the stored outbound secrets');
  }
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT === env.PORT) {
    problems.push(`METRICS_PORT=${env.METRICS_PORT}: must differ from PORT (the metrics listener is separate and local)`);
  }
  if (problems.length) throw new ConfigValidationError(problems);
  return env;
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function checkUrl(value: string, protocols: string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid URL';
  }
  if (!protocols.includes(url.protocol)) return `must use ${protocols.join(' or ')}`;
  return undefined;
}
