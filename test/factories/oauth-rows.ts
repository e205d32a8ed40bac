import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

/**
 * OAuth rows inserted straight into the database with times relative to now (PostgreSQL
 * interval strings such as '-2 days'), for tests of what the periodic cleanup deletes.
 */
export interface GrantRef {
  id: string;
  clientId: string;
  userId: string;
  organizationId: string;
  projectId: string;
}

const digest = () => randomBytes(32).toString('hex');

export async function grantOfClient(ds: DataSource, clientId: string): Promise<GrantRef> {
  const [g] = await ds.query(
    `SELECT id, client_id AS "clientId", user_id AS "userId", organization_id AS "organizationId", project_id AS "projectId"
       FROM oauth_grants WHERE client_id = $1`,
    [clientId],
  );
  return g as GrantRef;
}

export async function insertCode(ds: DataSource, grant: GrantRef, expiresIn: string, used: boolean): Promise<string> {
  const [row] = await ds.query(
    `INSERT INTO oauth_authorization_codes (code_hash, grant_id, client_id, redirect_uri, redirect_uri_sent, code_challenge, created_at, expires_at, used_at)
     VALUES ($1, $2, $3, 'http://127.0.0.1/cb', true, 'challenge', now() + $4::interval - interval '5 minutes', now() + $4::interval,
             CASE WHEN $5 THEN now() + $4::interval - interval '4 minutes' END)
     RETURNING id`,
    [digest(), grant.id, grant.clientId, expiresIn, used],
  );
  return row.id;
}

export async function insertConsentRequest(ds: DataSource, grant: GrantRef, expiresIn: string, decided: boolean): Promise<string> {
  const [row] = await ds.query(
    `INSERT INTO oauth_authorization_requests
       (client_id, user_id, redirect_uri, redirect_uri_sent, code_challenge, requested_permissions, csrf_hash, created_at, expires_at, decided_at)
     VALUES ($1, $2, 'http://127.0.0.1/cb', true, 'challenge', '{project:read}', $3, now() + $4::interval - interval '10 minutes',
             now() + $4::interval, CASE WHEN $5 THEN now() + $4::interval - interval '9 minutes' END)
     RETURNING id`,
    [grant.clientId, grant.userId, digest(), expiresIn, decided],
  );
  return row.id;
}

export async function insertRefreshToken(
  ds: DataSource,
  grant: GrantRef,
  expiresIn: string,
  options: { rotated?: boolean; revoked?: boolean } = {},
): Promise<string> {
  const [row] = await ds.query(
    `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, issued_by, created_at, expires_at, rotated_at, revoked_at)
     VALUES ($1, $2, 'rotation', now() + $3::interval - interval '30 days', now() + $3::interval,
             CASE WHEN $4 THEN now() + $3::interval - interval '29 days' END, CASE WHEN $5 THEN now() - interval '1 hour' END)
     RETURNING id`,
    [digest(), grant.id, expiresIn, options.rotated ?? false, options.revoked ?? false],
  );
  return row.id;
}

/** An OAuth access token of the grant, created `createdAgo` ago, living one hour, last used `lastUsedAgo` ago (or never). */
export async function insertAccessToken(ds: DataSource, grant: GrantRef, createdAgo: string, lastUsedAgo?: string): Promise<string> {
  const [row] = await ds.query(
    `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, grant_id, client_id, user_id, created_at, expires_at, last_used_at)
     VALUES ($1, 'oauth', $2, $3, '{project:read}', $4, $5, $6, now() - $7::interval, now() - $7::interval + interval '1 hour',
             CASE WHEN $8::interval IS NOT NULL THEN now() - $8::interval END)
     RETURNING id`,
    [digest(), grant.organizationId, grant.projectId, grant.id, grant.clientId, grant.userId, createdAgo, lastUsedAgo ?? null],
  );
  return row.id;
}
