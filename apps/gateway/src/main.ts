import { existsSync } from 'node:fs';
import { AppConfig, ConfigValidationError } from '@app/config';
import { DataFolderLockedError } from '@app/database';
import { bootLogger, createGatewayApp } from './configure-app';
import { installGracefulShutdown } from './graceful-shutdown';

async function bootstrap(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
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
  installGracefulShutdown(app, config);
  await app.listen(config.port, config.host);
  bootLogger.log(`Agent Gateway listening on ${config.host}:${config.port}; MCP endpoint ${config.mcpResourceUrl}`);
}

bootstrap().catch((error: unknown) => {
  if (error instanceof DataFolderLockedError) {
    process.stderr.write(`Agent Gateway refused to start. ${error.message}\n`);
    process.exit(75);
  }
  process.stderr.write(`Agent Gateway failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
