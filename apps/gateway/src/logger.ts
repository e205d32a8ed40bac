import { ConsoleLogger, LoggerService, LogLevel as NestLogLevel } from '@nestjs/common';
import type { LogLevel } from '@app/config';

const ORDER: LogLevel[] = ['verbose', 'debug', 'info', 'warn', 'error', 'fatal'];
const NEST_NAME: Record<Exclude<LogLevel, 'silent'>, NestLogLevel> = {
  verbose: 'verbose',
  debug: 'debug',
  info: 'log',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
};

/**
 * Structured JSON lines on stdout. Levels below LOG_LEVEL are filtered before any formatting,
 * so a quiet logger costs nothing. Callers never pass secrets: tokens are logged by id only.
 */
export function createLogger(level: LogLevel): LoggerService | false {
  if (level === 'silent') return false;
  const enabled = ORDER.slice(ORDER.indexOf(level)).map((l) => NEST_NAME[l as Exclude<LogLevel, 'silent'>]);
  return new ConsoleLogger({ json: true, logLevels: enabled, colors: false });
}
