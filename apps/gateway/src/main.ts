// First: tracing (when configured) must be set up before Express, pg and http load.
import { tracing } from './instrumentation';
import { AppConfig, ConfigValidationError } from '@app/config';
import { DataFolderLockedError } from '@app/database';
import { bootLogger, createGatewayApp } from './configure-app';
import { installGracefulShutdown } from './graceful-shutdown';

async function bootstrap(): Promise<void> {
  let config: AppConfig;
  try {
    config = AppConfig.fromEnvironment(process.env);
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      process.stderr.write(`Agent Gateway refused to start. ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const app = await createGatewayApp(config);
  const sdk = tracing;
  installGracefulShutdown(app, config, sdk && (() => flushTraces(sdk)));
  await app.listen(config.port, config.host);
  bootLogger.log(`Agent Gateway listening on ${config.host}:${config.port}; MCP endpoint ${config.mcpResourceUrl}`);
}

/** Exports the spans still pending, giving up after 2 s (a collector that does not answer must not hold the exit). */
async function flushTraces(sdk: NonNullable<typeof tracing>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)));
  await Promise.race([sdk.shutdown().catch(() => undefined), timeout]);
  clearTimeout(timer);
}

bootstrap().catch((error: unknown) => {
  if (error instanceof DataFolderLockedError) {
    process.stderr.write(`Agent Gateway refused to start. ${error.message}\n`);
    process.exit(75);
  }
  process.stderr.write(`Agent Gateway failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
