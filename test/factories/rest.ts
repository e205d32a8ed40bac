import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeyPermission, generateToken, hashToken } from '@app/credential-store';
import { SessionTokenService } from '@app/people';
import type { TestApp } from '../helpers/test-app';
import { addMember, createOrganization, createUser } from './index';

/** A session JWT for a user, issued by the running service (as login would). */
export async function sessionFor(t: TestApp, userId: string): Promise<string> {
  return (await t.app.get(SessionTokenService).issue(userId)).accessToken;
}

export interface SignedUp {
  user: { id: string; email: string; name: string };
  organization: { id: string; name: string };
  accessToken: string;
  password: string;
}

/** Signs up over HTTP: a new person who is the admin of a new organisation. */
export async function signupOverHttp(t: TestApp, overrides: Partial<Record<'email' | 'password' | 'name' | 'organizationName', string>> = {}) {
  const password = overrides.password ?? `pw-${randomUUID()}`;
  const res = await request(t.baseUrl)
    .post('/api/auth/signup')
    .send({
      email: overrides.email ?? `admin-${randomUUID().slice(0, 8)}@example.test`,
      password,
      name: overrides.name ?? 'Ada Admin',
      organizationName: overrides.organizationName ?? `Org ${randomUUID().slice(0, 8)}`,
    })
    .expect(201);
  return { ...(res.body as Omit<SignedUp, 'password'>), password } as SignedUp;
}

/**
 * REST calls on an admin's organisation with the admin's session, `path` below
 * `/api/organizations/:orgId`. Read lazily, so it can be made before `beforeAll` signs up.
 */
export function adminRest(baseUrl: () => string, admin: () => SignedUp) {
  const org = () => `/api/organizations/${admin().organization.id}`;
  const post = (path: string, body?: object) => {
    const req = request(baseUrl()).post(`${org()}${path}`).set('Authorization', `Bearer ${admin().accessToken}`);
    return body === undefined ? req : req.send(body);
  };
  const get = (path: string) => request(baseUrl()).get(`${org()}${path}`).set('Authorization', `Bearer ${admin().accessToken}`);
  /** A project, a service key and a `dga_` token derived from it for that project, over REST. */
  async function serviceKeyToken(projectName: string, keyName: string) {
    const project = (await post('/projects', { name: projectName }).expect(201)).body as { id: string };
    const key = (await post('/agent-service-keys', { name: keyName }).expect(201)).body as { id: string };
    const derived = (await post(`/agent-service-keys/${key.id}/tokens`, { projectId: project.id }).expect(201)).body as {
      id: string;
      token: string;
    };
    return { project, key, derived };
  }
  return { org, post, get, serviceKeyToken };
}

/** An `rk_` key inserted directly (the REST route makes real ones; this builds preconditions). */
export async function createApiKey(
  ds: DataSource,
  organizationId: string,
  permissions: ApiKeyPermission[],
  options: { expiresAt?: Date | null; revokedAt?: Date | null } = {},
) {
  const key = generateToken('rk_');
  const [row] = await ds.query(
    `INSERT INTO api_keys (organization_id, name, key_hash, permissions, expires_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [organizationId, `key ${randomUUID().slice(0, 8)}`, hashToken(key), permissions, options.expiresAt ?? null, options.revokedAt ?? null],
  );
  return { id: (row as { id: string }).id, key };
}

/**
 * An organisation with an admin, a member and an outsider (admin of another organisation), each
 * with a session JWT. Only the admin has a password (`admin.password`).
 */
export async function createTeam(t: TestApp) {
  const ds = t.dataSource;
  const organization = await createOrganization(ds);
  const other = await createOrganization(ds);
  const admin = await createUser(ds, { name: 'Ada Admin' });
  const member = await createPersonWithoutPassword(ds, 'Max Member');
  const outsider = await createPersonWithoutPassword(ds, 'Olga Outsider');
  await addMember(ds, organization.id, admin.id, 'admin');
  await addMember(ds, organization.id, member.id, 'member');
  await addMember(ds, other.id, outsider.id, 'admin');
  return {
    organization,
    other,
    admin: { ...admin, jwt: await sessionFor(t, admin.id) },
    member: { ...member, jwt: await sessionFor(t, member.id) },
    outsider: { ...outsider, jwt: await sessionFor(t, outsider.id) },
  };
}

/** A person who never logs in during the test (no scrypt work): for membership preconditions. */
export async function createPersonWithoutPassword(ds: DataSource, name = 'Pat Person') {
  const email = `person-${randomUUID().slice(0, 8)}@example.test`;
  const [row] = await ds.query(
    `INSERT INTO users (email, name, password_hash) VALUES ($1, $2, 'disabled') RETURNING id, email, name`,
    [email, name],
  );
  return row as { id: string; email: string; name: string };
}
