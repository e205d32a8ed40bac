import { randomUUID } from 'node:crypto';
import { Client } from 'pg';

/** A database of its own on the run's PostgreSQL, and how to drop it. */
export interface ClonedDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A new database on the run's PostgreSQL server (`port`), cloned from the migrated template
 * `ag_template` that the run made, named `<prefix>_<random>`. `drop` removes it, closing what is
 * still connected.
 */
export async function cloneTemplateDatabase(port: number, prefix: string): Promise<ClonedDatabase> {
  const name = `${prefix}_${randomUUID().replace(/-/g, '')}`;
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ag_template`));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${name}`,
    async drop() {
      await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Runs `fn` on a new connection to `url`, closed afterwards. */
export async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
