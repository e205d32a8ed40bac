import { ConsoleLogger, LoggerService, LogLevel as NestLogLevel } from '@nestjs/common';
import { inspect } from 'node:util';
import type { LogLevel } from '@app/config';
import type { RequestLogLine } from '@app/observability';
import { type LogSink, processLogSink } from './log-sink';

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
 * Lines are written in batches through the process's `LogSink` (flushed every turn of the
 * event loop and on exit).
 */
export function createLogger(level: LogLevel, sink: LogSink = processLogSink()): LoggerService | false {
  if (level === 'silent') return false;
  const enabled = ORDER.slice(ORDER.indexOf(level)).map((l) => NEST_NAME[l as Exclude<LogLevel, 'silent'>]);
  return new BatchedConsoleLogger(sink, { json: true, logLevels: enabled, colors: false });
}

/**
 * The request log: one line per answered request, in the logger's JSON shape
 * (`{"level":"log","pid":…,"timestamp":…,"message":{…},"context":"Request"}`), written only when
 * LOG_LEVEL lets `info` through. The line holds names, ids and numbers only, so it is
 * serialised directly rather than through the logger's defensive serialiser.
 */
export function createRequestLog(level: LogLevel, sink: LogSink = processLogSink()): ((line: RequestLogLine) => void) | undefined {
  if (level === 'silent' || ORDER.indexOf(level) > ORDER.indexOf('info')) return undefined;
  const pid = process.pid;
  return (line) => sink.write('stdout', `${JSON.stringify({ level: 'log', pid, timestamp: Date.now(), message: line, context: 'Request' })}\n`);
}

/** What Nest's `ConsoleLogger.printAsJson` receives besides the message. */
interface JsonPrintOptions {
  context: string;
  logLevel: NestLogLevel;
  writeStreamType?: 'stdout' | 'stderr';
  errorStack?: unknown;
  params?: Record<string, unknown>;
  error?: Error;
}

/**
 * Nest's start-up lines mapping each controller and route (over 200 of the start's lines): detail
 * for `debug`, not news for `info`.
 */
const ROUTE_MAPPING_CONTEXTS = new Set(['RoutesResolver', 'RouterExplorer']);

/** Nest's JSON console logger, writing through the sink instead of one `write` per line. */
class BatchedConsoleLogger extends ConsoleLogger {
  constructor(
    private readonly sink: LogSink,
    options: ConstructorParameters<typeof ConsoleLogger>[1] & object,
  ) {
    super(options);
  }

  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (typeof context === 'string' && ROUTE_MAPPING_CONTEXTS.has(context)) this.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }

  protected override printAsJson(message: unknown, options: JsonPrintOptions): void {
    const logObject = this.getJsonLogObject(message, options);
    const formatted =
      !this.options.colors && this.inspectOptions.compact === true ? this.stringifyJsonLogObject(logObject) : inspect(logObject, this.inspectOptions);
    this.sink.write(options.writeStreamType ?? 'stdout', `${formatted}\n`);
  }
}
