import { startTestApp, TestApp } from './helpers/test-app';

/**
 * The entities and the migrations describe the same schema: on a freshly migrated database,
 * TypeORM's schema builder (what `synchronize` would run) finds nothing to change.
 */
describe('entities against the migrations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('leave nothing for the schema builder to change on a migrated database', async () => {
    const pending = await t.dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('cover every table the migrations create', async () => {
    const tables: { name: string }[] = await t.dataSource.query(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const mapped = new Set(t.dataSource.entityMetadatas.map((m) => m.tableName));
    // TypeORM's own bookkeeping, and the rate-limit counters, which only raw SQL reaches so far.
    const withoutEntity = tables.map((r) => r.name).filter((name) => !mapped.has(name));
    expect(withoutEntity.filter((name) => !['migrations', 'rate_limit_counters'].includes(name))).toEqual([]);
  });
});
