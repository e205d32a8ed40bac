import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { copyTemplate, createEmbeddedTemplate, EmbeddedPostgres, isUsableTemplate, pgliteVersion, templateStamp } from '@app/database';
import { testDatabaseKind } from './helpers/test-state';

async function query<T>(db: EmbeddedPostgres, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * The embedded database's pre-initialised data folder (the build makes it): a new data folder is
 * a copy of it, not a new initdb, and opens with the service's settings. Embedded run only.
 */
(testDatabaseKind() === 'embedded' ? describe : describe.skip)('the embedded database template', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ag-template-'));
  const template = join(dir, 'embedded-template');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is made once, stamped with the PGlite version that made it', async () => {
    expect(await createEmbeddedTemplate(template)).toBe(true);
    expect(existsSync(join(template, 'PG_VERSION'))).toBe(true);
    expect(JSON.parse(readFileSync(templateStamp(template), 'utf8'))).toEqual({ pglite: pgliteVersion(), made: expect.any(String) });
    expect(await createEmbeddedTemplate(template)).toBe(false);
  }, 120_000);

  it('a new data folder is a copy of it (two folders, one system identifier) and opens with the service settings', async () => {
    const ids: string[] = [];
    for (const name of ['one', 'two']) {
      const db = await EmbeddedPostgres.start({ dataDir: join(dir, name, 'pg'), templateDir: template, maxConnections: 2 });
      try {
        const [settings] = await query<{ shared_buffers: string; id: string }>(
          db,
          "SELECT current_setting('shared_buffers') AS shared_buffers, system_identifier::text AS id FROM pg_control_system()",
        );
        expect(settings.shared_buffers).toBe('16MB');
        ids.push(settings.id);
        await query(db, 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)');
      } finally {
        await db.stop();
      }
    }
    expect(ids[0]).toBe(ids[1]);
    // The copy is a database of its own: reopened, it keeps what was written.
    const reopened = await EmbeddedPostgres.start({ dataDir: join(dir, 'one', 'pg'), templateDir: template, maxConnections: 2 });
    try {
      expect(await query(reopened, 'SELECT n FROM kept')).toEqual([{ n: 42 }]);
    } finally {
      await reopened.stop();
    }
  }, 120_000);

  it('a copy cut short (no PG_VERSION yet) is copied again', async () => {
    const dataDir = join(dir, 'cut', 'pg');
    mkdirSync(join(dataDir, 'base'), { recursive: true });
    writeFileSync(join(dataDir, 'base', 'half-written'), 'x');
    const db = await EmbeddedPostgres.start({ dataDir, templateDir: template, maxConnections: 2 });
    try {
      expect(await query(db, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.stop();
    }
  }, 120_000);

  it('a template made by another PGlite version, or incomplete, is not used', () => {
    const stale = join(dir, 'stale-template');
    mkdirSync(stale);
    writeFileSync(join(stale, 'PG_VERSION'), '18\n');
    writeFileSync(templateStamp(stale), JSON.stringify({ pglite: '0.0.1' }));
    expect(isUsableTemplate(stale)).toBe(false);
    expect(copyTemplate(stale, join(dir, 'never'))).toBe(false);
    expect(existsSync(join(dir, 'never'))).toBe(false);
    rmSync(templateStamp(stale));
    expect(isUsableTemplate(stale)).toBe(false);
    expect(isUsableTemplate(template)).toBe(true);
  });
});
