import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { EmbeddedPostgres } from '../../libs/database/src/embedded-postgres';
import { MIGRATIONS } from '../../libs/database/src/migrations';
import { ensureSourceTemplate } from './embedded-template-setup';
import { findPostgresBin, startPostgres } from './postgres-server';
import { TestDatabaseKind, TestState, testDatabaseKind } from './test-state';

async function migrate(url: string): Promise<void> {
  const ds = new DataSource({ type: 'postgres', url, migrations: MIGRATIONS, migrationsTransactionMode: 'each' });
  await ds.initialize();
  await ds.runMigrations();
  await ds.destroy();
}

/**
 * Drops PostgreSQL's two template databases from the embedded snapshot: nothing the service or a
 * test does on the embedded database creates a database from them, and they are 14 of the
 * snapshot's 40 MB, which every test app's PGlite unpacks (about 0.4 s of CPU per app start,
 * docs/testing.md, "CI time").
 */
async function dropTemplateDatabases(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
    await client.query('DROP DATABASE template0');
    await client.query('DROP DATABASE template1');
  } finally {
    await client.end();
  }
}

/**
 * Prepares one migrated database state of `kind` for a run, so each test file starts its own
 * database from it in well under a second: a PGlite snapshot (embedded), or a template database
 * on a throwaway PostgreSQL cluster (postgres). Answers the state file's path.
 */
export async function prepareTestState(kind: TestDatabaseKind): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ag-test-'));
  let state: TestState;
  if (kind === 'postgres') {
    const bin = findPostgresBin();
    if (!bin) throw new Error('TEST_DATABASE=postgres needs the PostgreSQL server binaries (Debian package postgresql-15)');
    const server = await startPostgres(bin);
    const admin = new Client({ connectionString: server.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE ag_template');
    await admin.end();
    await migrate(server.url('ag_template'));
    state = { kind, dir, postgres: { port: server.port, dir: server.dir, bin: server.bin } };
  } else {
    const embedded = await EmbeddedPostgres.start({ maxConnections: 2 });
    await migrate(embedded.url);
    await dropTemplateDatabases(embedded.url);
    const snapshot = await embedded.dump();
    await embedded.stop();
    const snapshotFile = join(dir, 'migrated.tar');
    writeFileSync(snapshotFile, Buffer.from(await snapshot.arrayBuffer()));
    state = { kind, dir, snapshotFile };
  }
  const stateFile = join(dir, 'state.json');
  writeFileSync(stateFile, JSON.stringify(state));
  return stateFile;
}

/**
 * The e2e project's global setup (one database, `TEST_DATABASE`): its state for the test files in
 * `AG_TEST_STATE`. Also makes sure the embedded database's initdb template is beside the sources
 * (`embedded-template-setup.ts`).
 */
export default async function globalSetup(): Promise<void> {
  // Services and the command line started from the sources copy it (scripts/test.js made it already).
  await ensureSourceTemplate();
  process.env.AG_TEST_STATE = await prepareTestState(testDatabaseKind());
}
