import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { EnvBase, toInt } from './env-transforms';

/** Rate limits: sign-in (password and single sign-on), sign-up, client registration, the token endpoint, metadata fetches, MCP. */
export function LimitVariables<B extends EnvBase>(Base: B) {
  class LimitVariables extends Base {
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
    ID_JAG_MAX_TRADES_PER_HOUR = 30;

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
    @Min(1)
    @Max(100000)
    CLIENT_METADATA_FETCHES_PER_IP_PER_MINUTE = 20;

    @Transform(toInt)
    @IsInt()
    @Min(1)
    @Max(100000)
    CLIENT_METADATA_FETCHES_PER_HOST_PER_MINUTE = 60;

    /** `GET /auth/sso/start` requests per client address per minute, shared by every instance. */
    @Transform(toInt)
    @IsInt()
    @Min(1)
    @Max(100000)
    SSO_STARTS_PER_IP_PER_MINUTE = 30;

    /** `GET /auth/sso/callback` requests per client address per minute, shared by every instance. */
    @Transform(toInt)
    @IsInt()
    @Min(1)
    @Max(100000)
    SSO_CALLBACKS_PER_IP_PER_MINUTE = 30;

    /** JSON-RPC requests to /api/mcp per agent grant per window, shared by every instance (0: no limit). */
    @Transform(toInt)
    @IsInt()
    @Min(0)
    @Max(10_000_000)
    MCP_RATE_LIMIT_PER_TOKEN = 600;

    /** JSON-RPC requests to /api/mcp per organisation (all its tokens) per window, shared by every instance (0: no limit). */
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

    /**
     * Tool calls one instance runs at once; past it, calls wait in per-organisation queues served
     * in turn (0: no bound). Unset: twice the database connections (the pool; 1 when embedded).
     */
    @IsOptional()
    @Transform(toInt)
    @IsInt()
    @Min(0)
    @Max(10_000)
    MCP_MAX_CONCURRENT_TOOL_CALLS?: number;
  }
  return LimitVariables;
}
