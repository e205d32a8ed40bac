import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { EnvBase, toBool, toInt, toStr } from './env-transforms';

/** Sessions, sign-up and the OAuth server: secrets, lifetimes, what clients may register. */
export function AuthVariables<B extends EnvBase>(Base: B) {
  class AuthVariables extends Base {
    @Transform(toStr)
    @IsOptional()
    @IsString()
    @MinLength(32)
    @MaxLength(512)
    SESSION_SECRET?: string;

    @Transform(toInt)
    @IsInt()
    @Min(1)
    SESSION_TTL_SECONDS = 43200;

    @Transform(toBool)
    @IsBoolean()
    SIGNUP_ENABLED = true;

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
    @Min(0)
    @Max(3600)
    REFRESH_REUSE_GRACE_SECONDS = 30;

    @Transform(toBool)
    @IsBoolean()
    CLIENT_METADATA_ALLOW_LOOPBACK = false;

    /** Development and tests only: identity providers on loopback addresses over http. */
    @Transform(toBool)
    @IsBoolean()
    IDENTITY_PROVIDER_ALLOW_LOOPBACK = false;

    /** Private-use redirect URI schemes without a dot that clients may register (comma-separated; empty: none). */
    @IsString()
    OAUTH_EXTRA_REDIRECT_SCHEMES = 'cursor,vscode,vscode-insiders,windsurf';
  }
  return AuthVariables;
}
