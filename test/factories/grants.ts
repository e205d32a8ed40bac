import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { generateToken, hashToken } from '@app/credential-store';

/**
 * A connected client inserted straight into the database: the client (registered, or a
 * metadata-document client when `clientId` is an https URL), the person's grant on a project and
 * one live access token of it, whose secret is returned so a test can present it at `/api/mcp`.
 */
export async function insertConnectedClient(
  ds: DataSource,
  options: {
    userId: string;
    organizationId: string;
    projectId: string;
    clientId?: string;
    clientName?: string;
    redirectUris?: string[];
    permissions?: string[];
  },
): Promise<{ grantId: string; clientId: string; accessToken: string }> {
  const clientId = options.clientId ?? randomUUID();
  const permissions = options.permissions ?? ['project:read', 'tasks:read'];
  await ds.query(
    `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, token_endpoint_auth_method)
     VALUES ($1, $2, $3, $4, 'none') ON CONFLICT (client_id) DO NOTHING`,
    [clientId, options.clientName ?? 'Test Client', options.redirectUris ?? ['http://127.0.0.1:8976/callback'], ['authorization_code', 'refresh_token']],
  );
  const [grant] = await ds.query(
    `INSERT INTO oauth_grants (user_id, client_id, organization_id, project_id, permissions) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [options.userId, clientId, options.organizationId, options.projectId, permissions],
  );
  const accessToken = generateToken('dga_');
  await ds.query(
    `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, grant_id, client_id, user_id, expires_at)
     VALUES ($1, 'oauth', $2, $3, $4, $5, $6, $7, now() + interval '1 hour')`,
    [hashToken(accessToken), options.organizationId, options.projectId, permissions, grant.id, clientId, options.userId],
  );
  return { grantId: grant.id as string, clientId, accessToken };
}
