import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AgentPermission } from '@app/capabilities';
import { OAuthGrantStore } from '@app/credential-store';
import { hashToken } from '@app/credentials';
import { isUuid } from '@app/database';
import { OrganizationDirectory, ProjectDirectory, UserDirectory } from '@app/tenancy';
import { authorizePath } from './authorize-urls';
import type { ValidatedAuthorization } from './authorize-request.validator';
import { ClientPolicyService } from './client-policy/client-policy.service';
import { OAuthPageError } from './oauth.errors';
import { groupProjects } from './reachable-projects';
import { isLoopbackRedirect, metadataDocumentHost, redirectHost } from './redirect-uri';
import { AuthorizationRequestsRepository, PendingAuthorization } from './store/authorization-requests.repository';
import { OAuthClientsRepository } from './store/oauth-clients.repository';
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
    private readonly organizations: OrganizationDirectory,
    private readonly clients: OAuthClientsRepository,
    private readonly grants: OAuthGrantStore,
    private readonly clientPolicies: ClientPolicyService,
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
    choices: {
      projectId?: string;
      permissions?: readonly AgentPermission[];
      error?: string;
      newProject?: ConsentView['newProject'];
    } = {},
  ): Promise<ConsentView> {
    const pending = await this.findPending(requestId);
    if (!pending) throw expiredRequest();
    const clientIdHost = metadataDocumentHost(pending.clientId);
    const reachable = await this.projects.reachableBy(userId);
    const admitting = await this.clientPolicies.admittingOrganizations(
      reachable.map((p) => p.organization.id),
      pending.clientId,
    );
    const refused = groupProjects(reachable.filter((p) => !admitting.has(p.organization.id)));
    const groups = groupProjects(reachable.filter((p) => admitting.has(p.organization.id)));
    const redirectUris = (await this.clients.find(pending.clientId))?.redirectUris ?? [pending.redirectUri];
    return {
      requestId,
      csrfToken,
      clientName: pending.clientName,
      clientIdHost,
      newClient: clientIdHost !== undefined && !(await this.grants.existsForUserAndClient(userId, pending.clientId)),
      localhostOnly: redirectUris.every(isLoopbackRedirect),
      redirectHost: redirectHost(pending.redirectUri),
      userEmail: (await this.users.findById(userId))?.email ?? '',
      switchAccountHref: `/login?next=${encodeURIComponent(authorizePath(pending))}`,
      groups,
      refusedOrganizations: refused.map((g) => g.organizationName),
      createIn: groups.length === 0 ? await this.creatableIn(userId, pending.clientId) : undefined,
      newProject: choices.newProject,
      checkedPermissions: choices.permissions ?? pending.requestedPermissions,
      selectedProjectId: choices.projectId,
      error: choices.error,
    };
  }

  /**
   * Where the person may create a project for this client: the organisations they administer
   * that admit it (the consent page offers this only when there is no project to pick).
   */
  async creatableIn(userId: string, clientId: string): Promise<{ id: string; name: string }[]> {
    const administered = (await this.organizations.listForMember(userId)).filter((o) => o.role === 'admin');
    const admitting = await this.clientPolicies.admittingOrganizations(
      administered.map((o) => o.id),
      clientId,
    );
    return administered.filter((o) => admitting.has(o.id)).map((o) => ({ id: o.id, name: o.name }));
  }
}

export function expiredRequest(): OAuthPageError {
  return new OAuthPageError(400, 'Request expired', 'This consent request is unknown, already answered or has expired. Start again from the application.');
}
