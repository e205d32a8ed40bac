import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AGENT_PERMISSION_NAMES, AgentPermission } from '@app/capabilities';
import { generateToken, hashToken } from '@app/credential-store';
import { hashPassword } from '@app/tenancy';

/**
 * Test data made straight in the database, each call with fresh names, so tests never share
 * rows. Once the REST and OAuth surfaces exist, prefer driving them over HTTP in e2e tests;
 * these factories build the preconditions.
 */
export async function createOrganization(ds: DataSource, name = `Org ${randomUUID().slice(0, 8)}`) {
  const [row] = await ds.query('INSERT INTO organizations (name) VALUES ($1) RETURNING id, name', [name]);
  return row as { id: string; name: string };
}

export async function createProject(ds: DataSource, organizationId: string, name = `Project ${randomUUID().slice(0, 8)}`) {
  const [row] = await ds.query(
    'INSERT INTO projects (organization_id, name) VALUES ($1, $2) RETURNING id, name, organization_id AS "organizationId"',
    [organizationId, name],
  );
  return row as { id: string; name: string; organizationId: string };
}

export async function createUser(
  ds: DataSource,
  options: { email?: string; password?: string; name?: string } = {},
) {
  const email = options.email ?? `user-${randomUUID().slice(0, 8)}@example.test`;
  const password = options.password ?? `pw-${randomUUID()}`;
  const [row] = await ds.query(
    'INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3) RETURNING id, email, name',
    [email, options.name ?? 'Test User', await hashPassword(password)],
  );
  return { ...(row as { id: string; email: string; name: string }), password };
}

export async function addMember(ds: DataSource, organizationId: string, userId: string, role: 'admin' | 'member') {
  await ds.query('INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, $3)', [organizationId, userId, role]);
}

export interface AgentTokenOptions {
  permissions?: AgentPermission[];
  expiresAt?: Date | null;
  revokedAt?: Date | null;
}

/**
 * An OAuth-style agent token bound to one project, inserted directly (the OAuth flow and the
 * service-key surface make real ones; this builds preconditions).
 */
export async function createAgentToken(
  ds: DataSource,
  project: { id: string; organizationId: string },
  options: AgentTokenOptions = {},
) {
  const token = generateToken('dga_');
  const [row] = await ds.query(
    `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, client_id, expires_at, revoked_at)
     VALUES ($1, 'oauth', $2, $3, $4, 'test-client', $5, $6) RETURNING id`,
    [
      hashToken(token),
      project.organizationId,
      project.id,
      options.permissions ?? AGENT_PERMISSION_NAMES,
      options.expiresAt === undefined ? new Date(Date.now() + 3600_000) : options.expiresAt,
      options.revokedAt ?? null,
    ],
  );
  return { id: (row as { id: string }).id, token };
}

/** An organisation with one project and a live agent token for it. */
export async function createProjectWithToken(ds: DataSource, options: AgentTokenOptions = {}) {
  const organization = await createOrganization(ds);
  const project = await createProject(ds, organization.id);
  const agentToken = await createAgentToken(ds, project, options);
  return { organization, project, ...agentToken };
}

/**
 * `count` projects in the organisation in one statement (`<prefix> 1` … `<prefix> N`, created in
 * that order): an organisation of tens of thousands of projects in well under a second, on both databases.
 */
export async function createProjectsInBulk(ds: DataSource, organizationId: string, count: number, prefix = 'Bulk project') {
  await ds.query(
    `INSERT INTO projects (organization_id, name, created_at)
     SELECT $1, $2 || ' ' || g, now() - interval '1 day' + g * interval '1 millisecond' FROM generate_series(1, $3::int) g`,
    [organizationId, prefix, count],
  );
}

/**
 * `count` members of the organisation in two statements (`<prefix> N`, `<prefix>-N-<random>@example.test`;
 * the same unusable password hash, so none can sign in).
 */
export async function addMembersInBulk(ds: DataSource, organizationId: string, count: number, prefix = 'bulk') {
  const tag = randomUUID().slice(0, 8);
  await ds.query(
    `WITH people AS (
       INSERT INTO users (email, name, password_hash)
       SELECT $2 || '-' || g || '-' || $3 || '@example.test', 'Bulk person ' || g, 'not-a-password-hash'
         FROM generate_series(1, $4::int) g
       RETURNING id)
     INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'member' FROM people`,
    [organizationId, prefix, tag, count],
  );
}
