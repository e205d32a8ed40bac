import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { EnvBase, toInt, toStr } from './env-transforms';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'verbose', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The log and the metrics listener. */
export function ObservabilityVariables<B extends EnvBase>(Base: B) {
  class ObservabilityVariables extends Base {
    @Transform(toStr)
    @IsIn(LOG_LEVELS as unknown as string[])
    LOG_LEVEL: LogLevel = 'info';

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

    /** The longest wait between two attempts to deliver to an audit sink that refuses. */
    @Transform(toInt)
    @IsInt()
    @Min(1)
    @Max(3600)
    AUDIT_SINK_MAX_BACKOFF_SECONDS = 30;
  }
  return ObservabilityVariables;
}
