import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Audit as evidence (owned by `libs/audit`, docs/audit.md):
 * - `audit_events.event`: the OCSF 1.8.0 event, built once when the record is written and
 *   stored as written; `chain`: the organisation's id, or `service` for what has no organisation;
 *   `seq`, `prev_hash`, `hash`: the record's place in its chain, null until the sealer seals it.
 *   `seal_after`: an aggregate of refusals is sealed only once its minute has closed.
 *   Rows written before this migration have no event yet: the sealer builds theirs from their
 *   columns (the same mapping as a new record) and seals them first, in `created_at` order.
 * - `audit_chains`: one row per chain, its head (last sealed `seq` and `hash`); the sealer of a
 *   chain holds its row (`FOR UPDATE SKIP LOCKED`) for one short transaction, so one instance at
 *   a time seals a chain.
 * - `audit_checkpoints`: signed checkpoints of a chain's head; `audit_checkpoint_keys`: every
 *   public key a checkpoint was ever signed with.
 */
export class AuditChain1764000025000 implements MigrationInterface {
  name = 'AuditChain1764000025000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_events ADD COLUMN chain text`);
    await q.query(`UPDATE audit_events SET chain = coalesce(organization_id::text, 'service')`);
    await q.query(`ALTER TABLE audit_events ALTER COLUMN chain SET NOT NULL`);
    await q.query(`ALTER TABLE audit_events ADD COLUMN event jsonb`);
    await q.query(`ALTER TABLE audit_events ADD COLUMN seq bigint`);
    await q.query(`ALTER TABLE audit_events ADD COLUMN prev_hash text`);
    await q.query(`ALTER TABLE audit_events ADD COLUMN hash text`);
    await q.query(`ALTER TABLE audit_events ADD COLUMN seal_after timestamptz`);
    await q.query(`CREATE UNIQUE INDEX audit_events_chain_seq_key ON audit_events (chain, seq)`);
    await q.query(`CREATE INDEX audit_events_unsealed_idx ON audit_events (chain, created_at, id) WHERE seq IS NULL`);
    await q.query(`
      CREATE TABLE audit_chains (
        chain text PRIMARY KEY,
        seq bigint NOT NULL DEFAULT 0,
        hash text,
        checkpoint_seq bigint NOT NULL DEFAULT 0,
        checkpoint_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE audit_checkpoints (
        chain text NOT NULL,
        seq bigint NOT NULL,
        hash text NOT NULL,
        key_id text NOT NULL,
        signature text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chain, seq)
      )`);
    await q.query(`
      CREATE TABLE audit_checkpoint_keys (
        key_id text PRIMARY KEY,
        public_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS audit_checkpoint_keys`);
    await q.query(`DROP TABLE IF EXISTS audit_checkpoints`);
    await q.query(`DROP TABLE IF EXISTS audit_chains`);
    await q.query(`DROP INDEX IF EXISTS audit_events_unsealed_idx`);
    await q.query(`DROP INDEX IF EXISTS audit_events_chain_seq_key`);
    for (const column of ['seal_after', 'hash', 'prev_hash', 'seq', 'event', 'chain']) await q.query(`ALTER TABLE audit_events DROP COLUMN IF EXISTS ${column}`);
  }
}
