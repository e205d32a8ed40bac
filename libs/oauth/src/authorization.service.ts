import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { AGENT_PERMISSION_NAMES, AgentPermission, generateToken, hashToken, isAgentPermission, TOKEN_PREFIXES } from '@app/credentials';
import { isUuid, queryReturning } from '@app/database';
import { ProjectDirectory, UserDirectory } from '@app/tenancy';
import { OAuthClientsService, RegisteredClient } from './oauth-clients.service';
import { AuthorizeRedirectErrorCode, OAuthPageError } from './oauth.errors';
import { digestsEqual, isOwnResource, isValidCodeChallenge, permissionsFromScope, singleParam } from './oauth-params';
import { matchRedirectUri, redirectHost, withResponseParams } from './redirect-uri';
import type { ConsentProjectGroup, ConsentView } from './views/consent.view';

/** How long the consent page stays valid after the authorize request. */
export const CONSENT_TTL_SECONDS = 600;
const MAX_STATE_LENGTH = 2000;

/** An authorize request that passed every check of SPEC §5. */
export interface ValidatedAuthorization {
  client: RegisteredClient;
  redirectUri: string;
  redirectUriSent: boolean;
  state: string | null;
  codeChallenge: string;
  requestedPermissions: AgentPermission[];
  resource: string | null;
}

export type AuthorizeCheck = { kind: 'valid'; request: ValidatedAuthorization } | { kind: 'redirect'; location: string };

export type ConsentOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'form'; status: 400 | 403; view: ConsentView };

interface PendingRow {
  id: string;
  client_id: string;
  client_name: string;
  user_id: string;
  redirect_uri: string;
  redirect_uri_sent: boolean;
  state: string | null;
  code_challenge: string;
  requested_permissions: AgentPermission[];
  resource: string | null;
  csrf_hash: string;
}

interface ProjectRow {
  organization_id: string;
  organization_name: string;
  project_id: string;
  project_name: string;
}

/**
 * The authorize endpoint and the consent decision (RFC 6749 §4.1, RFC 7636, RFC 8707, RFC 9207).
 * Checks run in an order that never redirects to an unvalidated URI: the client and the
 * redirect URI first (failures are HTML pages), then everything else (failures go back to the
 * redirect URI with `error`, `state` and `iss`).
 */
@Injectable()
export class AuthorizationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly clients: OAuthClientsService,
    private readonly audit: AuditService,
    private readonly users: UserDirectory,
    private readonly projects: ProjectDirectory,
  ) {}

  async check(query: Record<string, unknown>): Promise<AuthorizeCheck> {
    const clientIdParam = singleParam(query, 'client_id');
    if (clientIdParam.duplicate) throw new OAuthPageError(400, 'Invalid request', 'The client_id parameter was sent more than once.');
    if (!clientIdParam.value) throw new OAuthPageError(400, 'Invalid request', 'The request does not name an application (client_id is missing).');
    const client = await this.clients.find(clientIdParam.value);
    if (!client) {
      throw new OAuthPageError(400, 'Unknown application', 'The application that sent you here is not registered with Agent Gateway.');
    }

    const redirectParam = singleParam(query, 'redirect_uri');
    if (redirectParam.duplicate) throw new OAuthPageError(400, 'Invalid request', 'The redirect_uri parameter was sent more than once.');
    let redirectUri: string;
    let redirectUriSent: boolean;
    if (redirectParam.value === undefined) {
      if (client.redirectUris.length !== 1) {
        throw new OAuthPageError(400, 'Invalid request', 'The request has no redirect_uri and the application registered several.');
      }
      redirectUri = client.redirectUris[0];
      redirectUriSent = false;
    } else {
      if (!matchRedirectUri(client.redirectUris, redirectParam.value)) {
        throw new OAuthPageError(
          400,
          'Unregistered redirect URI',
          'The address this request wants to send you back to is not one the application registered, so Agent Gateway will not send you there.',
        );
      }
      redirectUri = redirectParam.value;
      redirectUriSent = true;
    }

    // From here on the redirect URI is trusted: errors go back to the client.
    const stateParam = singleParam(query, 'state');
    const state = stateParam.value ?? null;
    const fail = (error: AuthorizeRedirectErrorCode, description: string): AuthorizeCheck => ({
      kind: 'redirect',
      location: this.errorRedirect(redirectUri, error, description, stateParam.duplicate ? null : state),
    });
    if (stateParam.duplicate) return fail('invalid_request', 'state was sent more than once');
    if (state !== null && state.length > MAX_STATE_LENGTH) return fail('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters`);

    for (const name of ['response_type', 'code_challenge', 'code_challenge_method', 'scope']) {
      if (singleParam(query, name).duplicate) return fail('invalid_request', `${name} was sent more than once`);
    }
    const responseType = singleParam(query, 'response_type').value;
    if (!responseType) return fail('invalid_request', 'response_type is required');
    if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported');

    const codeChallenge = singleParam(query, 'code_challenge').value;
    const method = singleParam(query, 'code_challenge_method').value;
    if (!codeChallenge) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
    if (method === undefined) return fail('invalid_request', 'code_challenge_method is required and must be S256 (plain is not supported)');
    if (method !== 'S256') return fail('invalid_request', `code_challenge_method ${method} is not supported; use S256`);
    if (!isValidCodeChallenge(codeChallenge)) {
      return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the code verifier');
    }

    let resource: string | null = null;
    const rawResource = query.resource;
    if (rawResource !== undefined && rawResource !== '') {
      const values = Array.isArray(rawResource) ? rawResource : [rawResource];
      if (!values.every((v) => typeof v === 'string' && isOwnResource(v, this.config.mcpResourceUrl))) {
        return fail('invalid_target', `resource must be ${this.config.mcpResourceUrl}`);
      }
      resource = this.config.mcpResourceUrl;
    }

    const requestedPermissions = permissionsFromScope(singleParam(query, 'scope').value) ?? [...AGENT_PERMISSION_NAMES];
    return {
      kind: 'valid',
      request: { client, redirectUri, redirectUriSent, state, codeChallenge, requestedPermissions, resource },
    };
  }

  /** Stores the validated request for the consent page; returns its id and the form's CSRF token. */
  async createPending(userId: string, request: ValidatedAuthorization): Promise<{ requestId: string; csrfToken: string }> {
    const csrfToken = randomBytes(32).toString('base64url');
    const [row]: { id: string }[] = await this.dataSource.query(
      `INSERT INTO oauth_authorization_requests
         (client_id, user_id, redirect_uri, redirect_uri_sent, state, code_challenge, requested_permissions, resource, csrf_hash, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10)) RETURNING id`,
      [
        request.client.clientId,
        userId,
        request.redirectUri,
        request.redirectUriSent,
        request.state,
        request.codeChallenge,
        request.requestedPermissions,
        request.resource,
        hashToken(csrfToken),
        CONSENT_TTL_SECONDS,
      ],
    );
    return { requestId: row.id, csrfToken };
  }

  /** What the consent page shows for a pending request. */
  async consentView(
    requestId: string,
    csrfToken: string,
    userId: string,
    choices: { projectId?: string; permissions?: readonly AgentPermission[]; error?: string } = {},
  ): Promise<ConsentView> {
    const pending = await this.loadPending(this.dataSource.manager, requestId);
    if (!pending) throw expiredRequest();
    const user = await this.users.findById(userId);
    return {
      requestId,
      csrfToken,
      clientName: pending.client_name,
      redirectHost: redirectHost(pending.redirect_uri),
      userEmail: user?.email ?? '',
      switchAccountHref: `/login?next=${encodeURIComponent(authorizePath(pending))}`,
      groups: groupProjects(await this.reachableProjects(this.dataSource.manager, userId)),
      checkedPermissions: choices.permissions ?? pending.requested_permissions,
      selectedProjectId: choices.projectId,
      error: choices.error,
    };
  }

  /**
   * The person's answer on the consent page. The request must be theirs, alive and undecided,
   * and the CSRF token must match; then Deny sends `access_denied`, and Approve (one reachable
   * project, at least one permission) creates the grant and a single-use code.
   */
  async decide(userId: string, body: Record<string, unknown>, origin: RequestOrigin): Promise<ConsentOutcome> {
    const requestId = singleParam(body, 'request_id').value;
    if (!requestId || !isUuid(requestId)) throw expiredRequest();
    const pending = await this.loadPending(this.dataSource.manager, requestId);
    if (!pending) throw expiredRequest();
    if (pending.user_id !== userId) {
      throw new OAuthPageError(403, 'Signed in as someone else', 'This consent page was opened by another account. Start again from the application.');
    }
    const csrf = singleParam(body, 'csrf_token').value;
    if (!csrf || !digestsEqual(hashToken(csrf), pending.csrf_hash)) {
      throw new OAuthPageError(403, 'Form expired', 'The form was missing its security token or the token was wrong. Start again from the application.');
    }

    const decision = singleParam(body, 'decision').value;
    if (decision === 'deny') return this.deny(pending, userId, origin);
    if (decision !== 'approve') throw new OAuthPageError(400, 'Invalid request', 'Choose Approve or Deny.');

    const rawPermissions = body.permissions;
    const submitted = rawPermissions === undefined ? [] : Array.isArray(rawPermissions) ? rawPermissions : [rawPermissions];
    const projectParam = singleParam(body, 'project_id');
    const permissions = AGENT_PERMISSION_NAMES.filter((p) => submitted.includes(p));
    const formError = async (status: 400 | 403, error: string): Promise<ConsentOutcome> => ({
      kind: 'form',
      status,
      view: await this.consentView(requestId, csrf, userId, {
        projectId: projectParam.value,
        permissions: permissions.length ? permissions : pending.requested_permissions,
        error,
      }),
    });
    if (!submitted.every((p) => isAgentPermission(p))) return formError(400, 'One of the submitted permissions does not exist.');
    if (projectParam.duplicate) return formError(400, 'Pick exactly one project.');
    if (!projectParam.value) return formError(400, 'Pick the project the application may work on.');
    if (permissions.length === 0) return formError(400, 'Tick at least one permission, or choose Deny.');

    const outcome = await this.dataSource.transaction(async (em) => {
      const reachable = (await this.reachableProjects(em, userId)).find((p) => p.project_id === projectParam.value);
      if (!reachable) return { kind: 'unreachable' as const };
      const decided = await queryReturning(
        em,
        `UPDATE oauth_authorization_requests SET decided_at = now()
          WHERE id = $1 AND decided_at IS NULL AND expires_at > now() RETURNING id`,
        [pending.id],
      );
      if (decided.length === 0) return { kind: 'expired' as const };
      const [grant]: { id: string }[] = await em.query(
        `INSERT INTO oauth_grants (user_id, client_id, organization_id, project_id, permissions, resource)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
        [userId, pending.client_id, reachable.organization_id, reachable.project_id, permissions, pending.resource],
      );
      const code = generateToken(TOKEN_PREFIXES.authorizationCode);
      await em.query(
        `INSERT INTO oauth_authorization_codes
           (code_hash, grant_id, client_id, redirect_uri, redirect_uri_sent, code_challenge, resource, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
        [hashToken(code), grant.id, pending.client_id, pending.redirect_uri, pending.redirect_uri_sent, pending.code_challenge, pending.resource, this.config.authCodeTtlSeconds],
      );
      await em.query('UPDATE oauth_clients SET last_authorized_at = now() WHERE client_id = $1', [pending.client_id]);
      await this.audit.record(em, {
        organizationId: reachable.organization_id,
        projectId: reachable.project_id,
        actorType: 'user',
        actorId: userId,
        action: 'consent.approved',
        targetType: 'oauth_grant',
        targetId: grant.id,
        metadata: { clientId: pending.client_id, clientName: pending.client_name, permissions },
        origin,
      });
      return { kind: 'approved' as const, code };
    });
    if (outcome.kind === 'unreachable') return formError(403, 'You cannot give access to that project. Pick one of the projects listed.');
    if (outcome.kind === 'expired') throw expiredRequest();
    return {
      kind: 'redirect',
      location: withResponseParams(pending.redirect_uri, { code: outcome.code, state: pending.state, iss: this.config.issuer }),
    };
  }

  private async deny(pending: PendingRow, userId: string, origin: RequestOrigin): Promise<ConsentOutcome> {
    const denied = await this.dataSource.transaction(async (em) => {
      const rows = await queryReturning(
        em,
        `UPDATE oauth_authorization_requests SET decided_at = now()
          WHERE id = $1 AND decided_at IS NULL AND expires_at > now() RETURNING id`,
        [pending.id],
      );
      if (rows.length === 0) return false;
      await this.audit.record(em, {
        organizationId: null,
        actorType: 'user',
        actorId: userId,
        action: 'consent.denied',
        targetType: 'oauth_client',
        targetId: pending.client_id,
        metadata: { clientId: pending.client_id, clientName: pending.client_name },
        origin,
      });
      return true;
    });
    if (!denied) throw expiredRequest();
    return {
      kind: 'redirect',
      location: this.errorRedirect(pending.redirect_uri, 'access_denied', 'The person denied the request', pending.state),
    };
  }

  private errorRedirect(redirectUri: string, error: AuthorizeRedirectErrorCode, description: string, state: string | null): string {
    return withResponseParams(redirectUri, { error, error_description: description, state, iss: this.config.issuer });
  }

  private async loadPending(em: EntityManager, requestId: string): Promise<PendingRow | null> {
    if (!isUuid(requestId)) return null;
    const rows: PendingRow[] = await em.query(
      `SELECT r.id, r.client_id, c.client_name, r.user_id, r.redirect_uri, r.redirect_uri_sent, r.state, r.code_challenge,
              r.requested_permissions, r.resource, r.csrf_hash
         FROM oauth_authorization_requests r JOIN oauth_clients c ON c.client_id = r.client_id
        WHERE r.id = $1 AND r.decided_at IS NULL AND r.expires_at > now()`,
      [requestId],
    );
    return rows[0] ?? null;
  }

  /** Projects the person can reach: not deleted, in an organisation they are a member of. */
  private async reachableProjects(em: EntityManager, userId: string): Promise<ProjectRow[]> {
    return (await this.projects.reachableBy(userId, em)).map((p) => ({
      organization_id: p.organization.id,
      organization_name: p.organization.name,
      project_id: p.id,
      project_name: p.name,
    }));
  }
}

function groupProjects(rows: ProjectRow[]): ConsentProjectGroup[] {
  const groups = new Map<string, ConsentProjectGroup>();
  for (const row of rows) {
    let group = groups.get(row.organization_id);
    if (!group) {
      group = { organizationId: row.organization_id, organizationName: row.organization_name, projects: [] };
      groups.set(row.organization_id, group);
    }
    group.projects.push({ id: row.project_id, name: row.project_name });
  }
  return [...groups.values()];
}

/** The authorize request a pending row came from, to start over (e.g. signed in as someone else). */
function authorizePath(pending: PendingRow): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: pending.client_id });
  if (pending.redirect_uri_sent) query.set('redirect_uri', pending.redirect_uri);
  if (pending.state !== null) query.set('state', pending.state);
  query.set('code_challenge', pending.code_challenge);
  query.set('code_challenge_method', 'S256');
  query.set('scope', pending.requested_permissions.join(' '));
  if (pending.resource) query.set('resource', pending.resource);
  return `/api/agent/oauth/authorize?${query.toString()}`;
}

function expiredRequest(): OAuthPageError {
  return new OAuthPageError(400, 'Request expired', 'This consent request is unknown, already answered or has expired. Start again from the application.');
}
