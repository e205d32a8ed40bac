import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { toBool, toInt, toStr } from './env-transforms';

/** The process and its listener: environment, address, public URL, proxies, shutdown, cleanups. */
export class ServerVariables {
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
  MCP_ALLOWED_ORIGINS?: string;

  @Transform(toBool)
  @IsBoolean()
  TRUST_PROXY = false;

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
}
