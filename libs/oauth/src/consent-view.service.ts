import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AgentPermission, hashToken } from '@app/credentials';
import { isUuid } from '@app/database';
import { ProjectDirectory, UserDirectory } from '@app/tenancy';
import { authorizePath } from './authorize-urls';
import type { ValidatedAuthorization } from './authorize-request.validator';
import { OAuthPageError } from './oauth.errors';
import { groupProjects } from './reachable-projects';
import { metadataDocumentHost, redirectHost } from './redirect-uri';
import { AuthorizationRequestsRepository, PendingAuthorization } from './store/authorization-requests.repository';
import type { ConsentView } from './views/consent.view';

/** How long the consent page stays valid after the authorize request. */
export const CONSENT_TTL_SECONDS = 600;

/** The consent page's state: the pending request it stands for and what it shows. */
@Injectable()
export class ConsentViewService {
  constructor(
    private readonly requests: AuthorizationRequestsRepository,
    private readonly users: UserDirectory,
    private readonly projects: ProjectDirectory,
  ) {}

  /** Stores the validated request for the consent page; returns its id and the form's CSRF token. */
  async createPending(userId: string, request: ValidatedAuthorization): Promise<{ requestId: string; csrfToken: string }> {
    const csrfToken = randomBytes(32).toString('base64url');
    const requestId = await this.requests.insert(
      {
        clientId: request.client.clientId,
        userId,
        redirectUri: request.redirectUri,
        redirectUriSent: request.redirectUriSent,
        state: request.state,
        codeChallenge: request.codeChallenge,
        requestedPermissions: request.requestedPermissions,
        resource: request.resource,
        csrfHash: hashToken(csrfToken),
      },
      CONSENT_TTL_SECONDS,
    );
    return { requestId, csrfToken };
  }

  /** The pending request, if it is alive and undecided. */
  findPending(requestId: string): Promise<PendingAuthorization | null> {
    return isUuid(requestId) ? this.requests.findPending(requestId) : Promise.resolve(null);
  }

  /** What the consent page shows for a pending request. */
  async view(
    requestId: string,
    csrfToken: string,
    userId: string,
    choices: { projectId?: string; permissions?: readonly AgentPermission[]; error?: string } = {},
  ): Promise<ConsentView> {
    const pending = await this.findPending(requestId);
    if (!pending) throw expiredRequest();
    return {
      requestId,
      csrfToken,
      clientName: pending.clientName,
      clientIdHost: metadataDocumentHost(pending.clientId),
      redirectHost: redirectHost(pending.redirectUri),
      userEmail: (await this.users.findById(userId))?.email ?? '',
      switchAccountHref: `/login?next=${encodeURIComponent(authorizePath(pending))}`,
      groups: groupProjects(await this.projects.reachableBy(userId)),
      checkedPermissions: choices.permissions ?? pending.requestedPermissions,
      selectedProjectId: choices.projectId,
      error: choices.error,
    };
  }
}

export function expiredRequest(): OAuthPageError {
  return new OAuthPageError(400, 'Request expired', 'This consent request is unknown, already answered or has expired. Start again from the application.');
}
