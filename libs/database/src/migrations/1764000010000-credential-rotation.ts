import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rotation with overlap. A derived project token that is rotating out keeps working until its
 * `expires_at` (the request's one indexed lookup already refuses an expired token), so per
 * (service key, project) there is one active token (no `expires_at`) and at most one rotating
 * out (an `expires_at`), each a unique partial index. An `rk_` key rotating out names the key
 * that replaces it (`replaced_by_id`) and ends at its `expires_at`.
 */
export class CredentialRotation1764000010000 implements MigrationInterface {
  name = 'CredentialRotation1764000010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS agent_tokens_one_active_per_key_project`);
    await q.query(`
      CREATE UNIQUE INDEX agent_tokens_one_active_per_key_project ON agent_tokens (service_key_id, project_id)
       WHERE service_key_id IS NOT NULL AND revoked_at IS NULL AND expires_at IS NULL`);
    await q.query(`
      CREATE UNIQUE INDEX agent_tokens_one_rotating_per_key_project ON agent_tokens (service_key_id, project_id)
       WHERE service_key_id IS NOT NULL AND revoked_at IS NULL AND expires_at IS NOT NULL`);
    await q.query(`ALTER TABLE api_keys ADD COLUMN replaced_by_id uuid`);
    await q.query(`CREATE INDEX api_keys_replaced_by_idx ON api_keys (replaced_by_id) WHERE replaced_by_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS api_keys_replaced_by_idx`);
    await q.query(`ALTER TABLE api_keys DROP COLUMN IF EXISTS replaced_by_id`);
    await q.query(`DROP INDEX IF EXISTS agent_tokens_one_rotating_per_key_project`);
    await q.query(`UPDATE agent_tokens SET revoked_at = expires_at WHERE source = 'service_key' AND expires_at IS NOT NULL AND revoked_at IS NULL`);
    await q.query(`DROP INDEX IF EXISTS agent_tokens_one_active_per_key_project`);
    await q.query(`
      CREATE UNIQUE INDEX agent_tokens_one_active_per_key_project ON agent_tokens (service_key_id, project_id)
       WHERE service_key_id IS NOT NULL AND revoked_at IS NULL`);
  }
}
