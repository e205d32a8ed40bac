import { randomBytes } from 'node:crypto';
import { mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Provider, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { createGatewayApp } from '../../apps/gateway/src/configure-app';
import { freePort } from './postgres-server';
import { cloneTemplateDatabase } from './template-database';
import { readTestState } from './test-state';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  /** `http://127.0.0.1:<port>`: the service really listens there (the MCP client needs a real port). */
  baseUrl: string;
  dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * Starts the whole service on 127.0.0.1 with its own fresh, migrated database: an in-memory
 * PGlite loaded from the run's snapshot, or a new database cloned from the template on the
 * run's PostgreSQL. `env` overrides configuration (short TTLs and the like); `controllers` are
 * mounted beside the features' own, `providers` added to the application module. When start-up fails, what was started is cleaned up and the
 * error is thrown.
 */
export async function startTestApp(env: Record<string, string> = {}, options: { controllers?: Type[]; providers?: Provider[] } = {}): Promise<TestApp> {
  // A free port can be taken by another process between choosing it and listening on it (other
  // test files and servers run at the same time): then start again on another port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTestAppOnce(env, options);
    } catch (err) {
      if (attempt >= 5 || (err as { code?: string }).code !== 'EADDRINUSE') throw err;
    }
  }
}

/** The SECRETS_KEYS of the test apps and processes of one test file: id `test`, one random key. */
export const TEST_SECRETS_KEYS = `test:${randomBytes(32).toString('base64')}`;

/**
 * The run's migrated embedded database (a 27 MB tarball, global-setup.ts) as a Blob backed by the file
 * (`openAsBlob`): each app's PGlite loads its own copy of the data folder from it, and no copy is
 * made in memory before that (a Blob built from the bytes costs some 0.4 s of CPU per app).
 */
const migratedSnapshot = (file: string): Promise<Blob> => openAsBlob(file) as Promise<Blob>;

async function startTestAppOnce(env: Record<string, string>, options: { controllers?: Type[]; providers?: Provider[] }): Promise<TestApp> {
  const state = readTestState();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'ag-app-'));
  const database = state.kind === 'postgres' && state.postgres ? await cloneTemplateDatabase(state.postgres.port, 't') : undefined;
  const databaseUrl = database?.url;
  const config = AppConfig.fromEnvironment({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    // One ring for every instance of a test (SPEC §10: instances of one deployment share it).
    SECRETS_KEYS: TEST_SECRETS_KEYS,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  const snapshot = state.kind === 'embedded' && state.snapshotFile ? await migratedSnapshot(state.snapshotFile) : undefined;
  const cleanUp = async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const app = await createGatewayApp(config, { database: { embeddedSnapshot: snapshot }, controllers: options.controllers, providers: options.providers }).catch(
    async (err: unknown) => {
      await cleanUp();
      throw err;
    },
  );
  try {
    await app.listen(port, '127.0.0.1');
  } catch (err) {
    await app.close().catch(() => undefined);
    await cleanUp();
    throw err;
  }
  const dataSource = app.get(DataSource);
  return {
    app,
    config,
    baseUrl: `http://127.0.0.1:${port}`,
    dataSource,
    async close() {
      await app.close();
      await cleanUp();
    },
  };
}
