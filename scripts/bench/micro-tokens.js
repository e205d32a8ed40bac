/**
 * What the statement micro-benchmarks share: the agent-token lookup's shape (11 columns: uuids,
 * text, a text array, timestamps) and a table of 1,000 tokens for it, on a throwaway PostgreSQL.
 */
const LOOKUP = {
  name: 'micro.token',
  text: `SELECT id, source, organization_id, project_id, permissions, service_key_id, grant_id, client_id, user_id, expires_at, last_used_at
         FROM micro_tokens WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
};

/** Creates `micro_tokens` with 1,000 live tokens, hashed `h1` … `h1000`. */
async function createTokens(pool) {
  await pool.query(`CREATE TABLE micro_tokens (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(), source text NOT NULL, organization_id uuid NOT NULL DEFAULT gen_random_uuid(),
    project_id uuid NOT NULL DEFAULT gen_random_uuid(), permissions text[] NOT NULL, service_key_id uuid, grant_id uuid, client_id text,
    user_id uuid, expires_at timestamptz, last_used_at timestamptz, revoked_at timestamptz, token_hash text NOT NULL UNIQUE)`);
  await pool.query(`INSERT INTO micro_tokens (source, permissions, token_hash, expires_at, last_used_at)
    SELECT 'oauth', ARRAY['tasks:read', 'tasks:write'], 'h' || g, now() + interval '1 day', now() FROM generate_series(1, 1000) g`);
}

module.exports = { LOOKUP, createTokens };
