import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;
const toBool = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  const v = String(value).toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return value;
};
const toStr = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'verbose', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every environment variable the service reads. `.env.example` mirrors this class one to one.
 * Values arrive as strings; transforms turn them into numbers and booleans before validation,
 * so a non-numeric PORT fails validation instead of silently becoming NaN.
 */
export class EnvironmentVariables {
  @IsOptional()
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @Transform(toStr)
  @IsString()
  HOST = '0.0.0.0';

  @Transform(toStr)
  @IsOptional()
  @IsString()
  BASE_URL?: string;

  @Transform(toStr)
  @IsOptional()
  @IsString()
  DATABASE_URL?: string;

  @Transform(toStr)
  @IsString()
  DATA_DIR = './data';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  DATABASE_POOL_SIZE = 10;

  @Transform(toStr)
  @IsOptional()
  @IsString()
  @MinLength(32)
  @MaxLength(512)
  SESSION_SECRET?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  ACCESS_TOKEN_TTL_SECONDS = 3600;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  REFRESH_TOKEN_TTL_SECONDS = 2592000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600)
  AUTH_CODE_TTL_SECONDS = 300;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  SESSION_TTL_SECONDS = 43200;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  REFRESH_REUSE_GRACE_SECONDS = 30;

  @Transform(toBool)
  @IsBoolean()
  SIGNUP_ENABLED = true;

  @Transform(toStr)
  @IsOptional()
  @IsString()
  MCP_ALLOWED_ORIGINS?: string;

  @Transform(toBool)
  @IsBoolean()
  TRUST_PROXY = false;

  @Transform(toStr)
  @IsIn(LOG_LEVELS as unknown as string[])
  LOG_LEVEL: LogLevel = 'info';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  REGISTRATION_RATE_LIMIT_PER_MINUTE = 30;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP = 10;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  LOGIN_MAX_FAILURES_PER_EMAIL = 100;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  LOGIN_MAX_FAILURES_PER_IP = 50;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86400)
  LOGIN_FAILURE_WINDOW_SECONDS = 900;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  TOKEN_MAX_FAILURES_PER_CLIENT_AND_IP = 30;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  TOKEN_MAX_AUTH_FAILURES_PER_CLIENT = 100;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  REVOCATION_MAX_FAILURES_PER_CLIENT_AND_IP = 30;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86400)
  TOKEN_FAILURE_WINDOW_SECONDS = 300;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  SIGNUP_RATE_LIMIT_PER_HOUR = 30;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(86400)
  CLEANUP_INTERVAL_SECONDS = 600;

  /** Default: 5 when NODE_ENV=production, else 0 (see AppConfig). */
  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(300)
  SHUTDOWN_DELAY_SECONDS?: number;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(300)
  SHUTDOWN_DRAIN_SECONDS = 10;

  @Transform(toStr)
  @IsOptional()
  @IsString()
  @MinLength(32)
  @MaxLength(512)
  METRICS_TOKEN?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  /** Requests to /api/mcp per agent token per window, counted by each instance (0: no limit). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  MCP_RATE_LIMIT_PER_TOKEN = 600;

  /** Requests to /api/mcp per organisation (all its tokens) per window, counted by each instance (0: no limit). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  MCP_RATE_LIMIT_PER_ORGANIZATION = 3000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  MCP_RATE_LIMIT_WINDOW_SECONDS = 60;

  @Transform(toBool)
  @IsBoolean()
  CLIENT_METADATA_ALLOW_LOOPBACK = false;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  CLIENT_METADATA_FETCHES_PER_IP_PER_MINUTE = 20;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  CLIENT_METADATA_FETCHES_PER_HOST_PER_MINUTE = 60;

  /** Private-use redirect URI schemes without a dot that clients may register (comma-separated; empty: none). */
  @IsString()
  OAUTH_EXTRA_REDIRECT_SCHEMES = 'cursor,vscode,vscode-insiders,windsurf';
}

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
  for (const key of [...known, 'BASE_URL', 'DATABASE_URL', 'SESSION_SECRET', 'MCP_ALLOWED_ORIGINS', 'SHUTDOWN_DELAY_SECONDS', 'METRICS_TOKEN', 'METRICS_PORT']) {
    if (raw[key] !== undefined) picked[key] = raw[key];
  }
  const env = plainToInstance(EnvironmentVariables, picked, { exposeDefaultValues: true });
  const problems: string[] = [];
  for (const error of validateSync(env, { skipMissingProperties: false })) {
    const shown = error.property === 'SESSION_SECRET' || error.property === 'METRICS_TOKEN' ? '(hidden)' : JSON.stringify(picked[error.property]);
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
  for (const scheme of splitList(env.OAUTH_EXTRA_REDIRECT_SCHEMES ?? '')) {
    if (!/^[a-z][a-z0-9+.-]*$/i.test(scheme)) {
      problems.push(`OAUTH_EXTRA_REDIRECT_SCHEMES: ${JSON.stringify(scheme)} is not a URI scheme (letters, digits, +, - and ., without the colon)`);
    }
  }
  if (env.NODE_ENV === 'production' && !env.SESSION_SECRET) {
    problems.push('SESSION_SECRET: required when NODE_ENV=production (at least 32 characters)');
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
