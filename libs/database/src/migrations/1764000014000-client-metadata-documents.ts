import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The shared cache of validated Client ID Metadata Documents (owned by `libs/oauth`): one row
 * per `client_id` URL, kept until its HTTP cache lifetime ends (5 minutes … 24 hours); the
 * expiry index serves the lookup of fresh rows and the periodic deletion of stale ones.
 */
export class ClientMetadataDocuments1764000014000 implements MigrationInterface {
  name = 'ClientMetadataDocuments1764000014000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE client_metadata_documents (
        client_id text PRIMARY KEY,
        client_name text NOT NULL,
        redirect_uris text[] NOT NULL,
        fetched_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX client_metadata_documents_expiry_idx ON client_metadata_documents (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS client_metadata_documents`);
  }
}
