import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AGENT_PERMISSION_NAMES, AgentPermission } from '@app/capabilities';
import { ApiKeyPermission, generateToken, hashToken } from '@app/credential-store';
import { SessionTokenService } from '@app/people';
import { addMember, createOrganization, createUser } from './index';

/** A person with a session JWT and the given role in an organisation. */
export async function createSessionUser(
  app: INestApplication,
  ds: DataSource,
  organizationId: string,
  role: 'admin' | 'member',
) {
  const user = await createUser(ds);
  await addMember(ds, organizationId, user.id, role);
  const { accessToken } = await app.get(SessionTokenService).issue(user.id);
  return { ...user, session: accessToken };
}

/** An organisation with an administrator who holds a session JWT. */
export async function createOrganizationWithAdmin(app: INestApplication, ds: DataSource) {
  const organization = await createOrganization(ds);
  const admin = await createSessionUser(app, ds, organization.id, 'admin');
  return { organization, admin };
}

/** A scoped `rk_` key of an organisation, inserted directly (the API-key routes make real ones). */
export async function createApiKey(ds: DataSource, organizationId: string, permissions: ApiKeyPermission[]) {
  const key = generateToken('rk_');
  const [row] = await ds.query(
    `INSERT INTO api_keys (organization_id, name, key_hash, permissions) VALUES ($1, 'test key', $2, $3) RETURNING id`,
    [organizationId, hashToken(key), permissions],
  );
  return { id: (row as { id: string }).id, key };
}

/** A service key row, inserted directly (for preconditions; the REST route makes real ones). */
export async function createServiceKeyRow(
  ds: DataSource,
  organizationId: string,
  permissions: AgentPermission[] = AGENT_PERMISSION_NAMES,
) {
  const [row] = await ds.query(
    `INSERT INTO service_keys (organization_id, name, permissions) VALUES ($1, 'seeded key', $2) RETURNING id`,
    [organizationId, permissions],
  );
  return { id: (row as { id: string }).id };
}
