import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { EnvBase, toBool, toInt, toStr } from './env-transforms';

/** Where the data lives: a PostgreSQL URL, or the embedded database's folder. */
export function DatabaseVariables<B extends EnvBase>(Base: B) {
  class DatabaseVariables extends Base {
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

    /** Prepare the request path's frequent reads by name on PostgreSQL (off behind a pooler that cannot keep them). */
    @Transform(toBool)
    @IsBoolean()
    DATABASE_PREPARED_STATEMENTS = true;

    /** How long one of the request path's pipelined statements may go unanswered before it fails as "unavailable" (503). */
    @Transform(toInt)
    @IsInt()
    @Min(100)
    @Max(600_000)
    DATABASE_STATEMENT_TIMEOUT_MS = 5_000;

    /** Statements in flight on one pipelined connection beyond which new ones go to the pool. */
    @Transform(toInt)
    @IsInt()
    @Min(1)
    @Max(100_000)
    DATABASE_PIPELINE_MAX_QUEUED = 100;

    /** The embedded database's shared buffers: resident memory, and how much data stays cached; unset, sized to the data. */
    @Transform(toInt)
    @IsOptional()
    @IsInt()
    @Min(1)
    @Max(4096)
    EMBEDDED_SHARED_BUFFERS_MB?: number;
  }
  return DatabaseVariables;
}
