/**
 * The first module `main.ts` loads, before Express, `pg` or `node:http` are required: reads the
 * `.env` file (the environment wins) and, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, starts
 * OpenTelemetry tracing so its instrumentations can patch those modules as they load
 * (docs/operations.md, "Traces"). With tracing off it loads nothing more.
 */
import { existsSync } from 'node:fs';
import { startTracing, tracingProblem } from '@app/observability/tracing';

// Whatever the service creates (the embedded database's files, the session secret, the lock and
// the backup socket) is private to its user: folders 0700, files 0600 (docs/operations.md).
process.umask(0o077);

if (existsSync('.env')) process.loadEnvFile('.env');

const problem = tracingProblem(process.env);
if (problem) {
  process.stderr.write(`Agent Gateway refused to start. Invalid configuration:\n  - ${problem}\n`);
  process.exit(78);
}

/** The running SDK (undefined when tracing is off); `shutdown()` exports the spans still pending. */
export const tracing = startTracing(process.env);
