import { DataSource } from 'typeorm';
import { generateToken, hashToken } from '@app/credential-store';

/** A valid, live `rk_` API key of the organisation, inserted by hash (the REST surface makes real ones). */
export async function createApiKey(ds: DataSource, organizationId: string, permissions: string[] = ['projects:read']) {
  const key = generateToken('rk_');
  const [row] = await ds.query(
    `INSERT INTO api_keys (organization_id, name, key_hash, permissions) VALUES ($1, $2, $3, $4) RETURNING id`,
    [organizationId, 'e2e key', hashToken(key), permissions],
  );
  return { id: (row as { id: string }).id, key };
}

/** Soft-deletes a project the way the REST surface does (deleted_at set). */
export async function softDeleteProject(ds: DataSource, projectId: string): Promise<void> {
  await ds.query('UPDATE projects SET deleted_at = now() WHERE id = $1', [projectId]);
}
