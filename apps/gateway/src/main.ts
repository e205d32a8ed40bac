// First: tracing (when configured) must be set up before Express, pg and http load.
import { tracing } from './instrumentation';
import { AppConfig, ConfigValidationError } from '@app/config';
import { DataFolderLockedError, DataFolderPermissionsError } from '@app/database';
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
  if (!config.baseUrlConfigured && config.nodeEnv === 'production') {
    process.stderr.write(`Agent Gateway refused to start. ${BASE_URL_REQUIRED}\n`);
    process.exit(78);
  }
  const app = await createGatewayApp(config);
  const sdk = tracing;
  installGracefulShutdown(app, config, sdk && (() => flushTraces(sdk)));
  await app.listen(config.port, config.host);
  bootLogger.log(`Agent Gateway listening on ${config.host}:${config.port}; MCP endpoint ${config.mcpResourceUrl}`);
  if (!config.baseUrlConfigured) bootLogger.warn(clientsMustUse(config.baseUrl));
}

/** Production without BASE_URL: the issuer and every discovery URL would name a host clients cannot reach. */
export const BASE_URL_REQUIRED =
  'BASE_URL must be set when NODE_ENV=production: it is the OAuth issuer and the root of every URL in the discovery documents, ' +
  'so set it to the public URL clients use (for example BASE_URL=https://gateway.example.com).';

/** Development without BASE_URL: the one URL clients must use, since OAuth clients compare it with the address they opened. */
export function clientsMustUse(baseUrl: string): string {
  return (
    `BASE_URL is not set: clients must use ${baseUrl} (the OAuth issuer and the root of every URL in the discovery documents). ` +
    'Opening the service under another address (such as 127.0.0.1 instead of localhost) makes OAuth clients fail with an issuer or resource mismatch; ' +
    'set BASE_URL to the address clients use.'
  );
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
  if (error instanceof DataFolderPermissionsError) {
    process.stderr.write(`Agent Gateway refused to start. ${error.message}\n`);
    process.exit(78);
  }
  process.stderr.write(`Agent Gateway failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
