import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, MaxLength, Min, MinLength } from 'class-validator';
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

    /** How long audit records are kept, in days; an organisation may set a longer period of its own. */
    @Transform(toInt)
    @IsInt()
    @Min(1)
    @Max(36500)
    AUDIT_RETENTION_DAYS = 400;

    /**
     * The operator's stream of every audit chain: OpenTelemetry logs to this OTLP/HTTP endpoint
     * (the whole URL, e.g. http://otel-collector:4318/v1/logs). Unset: no stream.
     */
    @Transform(toStr)
    @IsOptional()
    @IsUrl(
      { protocols: ['http', 'https'], require_protocol: true, require_tld: false, require_valid_protocol: true },
      { message: 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT must be an http or https URL (the OTLP/HTTP logs endpoint, e.g. http://otel-collector:4318/v1/logs)' },
    )
    OTEL_EXPORTER_OTLP_LOGS_ENDPOINT?: string;
  }
  return ObservabilityVariables;
}
