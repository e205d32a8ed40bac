import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { deleteInBatches, queryReturning } from '@app/database';
import { AuthorizationRequest } from '../entities/authorization-request.entity';

/** A consent request still waiting for the person's answer, with its client's name. */
export type PendingAuthorization = Pick<
  AuthorizationRequest,
  'id' | 'clientId' | 'userId' | 'redirectUri' | 'redirectUriSent' | 'state' | 'codeChallenge' | 'requestedPermissions' | 'resource' | 'csrfHash'
> & { clientName: string };

/** The `oauth_authorization_requests` table: validated authorize requests awaiting consent. */
@Injectable()
export class AuthorizationRequestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    request: Omit<PendingAuthorization, 'id' | 'clientName'>,
    ttlSeconds: number,
  ): Promise<string> {
    const result = await this.dataSource.getRepository(AuthorizationRequest).insert({
      ...request,
      expiresAt: () => `now() + make_interval(secs => ${Math.trunc(ttlSeconds)})`,
    });
    return (result.identifiers[0] as { id: string }).id;
  }

  /** The request if it is alive and undecided. */
  async findPending(id: string): Promise<PendingAuthorization | null> {
    const rows: {
      id: string;
      client_id: string;
      client_name: string;
      user_id: string;
      redirect_uri: string;
      redirect_uri_sent: boolean;
      state: string | null;
      code_challenge: string;
      requested_permissions: PendingAuthorization['requestedPermissions'];
      resource: string | null;
      csrf_hash: string;
    }[] = await this.dataSource.query(
      `SELECT r.id, r.client_id, c.client_name, r.user_id, r.redirect_uri, r.redirect_uri_sent, r.state, r.code_challenge,
              r.requested_permissions, r.resource, r.csrf_hash
         FROM oauth_authorization_requests r JOIN oauth_clients c ON c.client_id = r.client_id
        WHERE r.id = $1 AND r.decided_at IS NULL AND r.expires_at > now()`,
      [id],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      id: r.id,
      clientId: r.client_id,
      clientName: r.client_name,
      userId: r.user_id,
      redirectUri: r.redirect_uri,
      redirectUriSent: r.redirect_uri_sent,
      state: r.state,
      codeChallenge: r.code_challenge,
      requestedPermissions: r.requested_permissions,
      resource: r.resource,
      csrfHash: r.csrf_hash,
    };
  }

  /** Conditional: true for exactly one answer, and only while the request is alive. */
  async markDecided(em: EntityManager, id: string): Promise<boolean> {
    const rows = await queryReturning(
      em,
      `UPDATE oauth_authorization_requests SET decided_at = now()
        WHERE id = $1 AND decided_at IS NULL AND expires_at > now() RETURNING id`,
      [id],
    );
    return rows.length === 1;
  }

  /** A consent request is read only while pending: decided or expired, it is done. */
  deleteDone(): Promise<number> {
    return deleteInBatches(this.dataSource, 'oauth_authorization_requests', 'id', 'decided_at IS NOT NULL OR expires_at < now()');
  }
}
