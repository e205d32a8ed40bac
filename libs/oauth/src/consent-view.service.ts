import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AgentPermission } from '@app/capabilities';
import { OAuthGrantStore, hashToken } from '@app/credential-store';
import { SessionPrincipal, SessionReach } from '@app/people';
import { decodeKeysetCursor, encodeKeysetCursor, keysetPage } from '@app/common';
import { isUuid } from '@app/database';
import { ProjectDirectory, UserDirectory } from '@app/tenancy';
import { authorizePath } from './authorize-urls';
import type { ValidatedAuthorization } from './authorize-request.validator';
import { ClientPolicyService } from './client-policy/client-policy.service';
import { OAuthPageError } from './oauth.errors';
import { isLoopbackRedirect, metadataDocumentHost, redirectHost } from './redirect-uri';
import { AuthorizationRequestsRepository, PendingAuthorization } from './store/authorization-requests.repository';
import { OAuthClientsRepository } from './store/oauth-clients.repository';
import type { ConsentView } from './views/consent.view';

/** How many projects of each organisation the consent page offers at a time. */
export const CONSENT_PROJECTS_PER_ORGANIZATION = 25;

/** The consent page's project search: names containing `query`; one organisation's list moved on to its next matches. */
export interface ConsentSearch {
  query: string;
  organizationId?: string;
  cursor?: string;
}

/** How long the consent page stays valid after the authorize request. */
export const CONSENT_TTL_SECONDS = 600;

/** The consent page's state: the pending request it stands for and what it shows. */
@Injectable()
export class ConsentViewService {
  constructor(
    private readonly requests: AuthorizationRequestsRepository,
    private readonly users: UserDirectory,
    private readonly projects: ProjectDirectory,
    private readonly clients: OAuthClientsRepository,
    private readonly grants: OAuthGrantStore,
    private readonly clientPolicies: ClientPolicyService,
    private readonly reach: SessionReach,
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

  /**
   * What the consent page shows for a pending request. The projects offered are one page per
   * organisation (never all of them: an organisation may have tens of thousands), narrowed by the
   * page's search (`search.query`, names containing it); `search.organizationId` and
   * `search.cursor` move one organisation's list to its next matches.
   */
  async view(
    requestId: string,
    csrfToken: string,
    session: SessionPrincipal,
    choices: {
      projectId?: string;
      permissions?: readonly AgentPermission[];
      error?: string;
      newProject?: ConsentView['newProject'];
      search?: ConsentSearch;
    } = {},
  ): Promise<ConsentView> {
    const userId = session.userId;
    const pending = await this.findPending(requestId);
    if (!pending) throw expiredRequest();
    const clientIdHost = metadataDocumentHost(pending.clientId);
    const search = choices.search ?? { query: '' };
    const after = search.cursor === undefined ? undefined : decodeKeysetCursor(search.cursor);
    // Only the organisations this session opens offer projects; the others are named with the sign-in each needs.
    const reached = await this.reach.organizationsOf(session);
    const organizations = reached.open.sort(
      (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    const admitting = await this.clientPolicies.admittingOrganizations(
      organizations.map((o) => o.id),
      pending.clientId,
    );
    const restart = authorizePath(pending);
    const link = (params: Record<string, string>) => `${restart}&${new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '')).toString()}`;
    const refused: string[] = [];
    const groups: ConsentView['groups'] = [];
    let anyProject = false;
    for (const org of organizations) {
      if (!admitting.has(org.id)) {
        if ((await this.projects.page(org.id, 1)).length > 0) refused.push(org.name);
        continue;
      }
      const paged = search.organizationId === org.id && after !== undefined;
      const rows = await this.projects.page(org.id, CONSENT_PROJECTS_PER_ORGANIZATION + 1, paged ? after : undefined, search.query || undefined);
      const page = keysetPage(rows, CONSENT_PROJECTS_PER_ORGANIZATION, (last) => encodeKeysetCursor({ us: last.createdUs, id: last.id }));
      anyProject ||= page.items.length > 0 || paged || (search.query !== '' && (await this.projects.page(org.id, 1)).length > 0);
      if (page.items.length === 0) continue;
      groups.push({
        organizationId: org.id,
        organizationName: org.name,
        projects: page.items.map((p) => ({ id: p.id, name: p.name })),
        moreHref: page.nextCursor ? link({ project_query: search.query, project_org: org.id, project_cursor: page.nextCursor }) : undefined,
        firstHref: paged ? link({ project_query: search.query }) : undefined,
      });
    }
    // A project picked in a refused post stays offered when it is not on the page shown.
    if (choices.projectId && !groups.some((g) => g.projects.some((p) => p.id === choices.projectId))) {
      const found = await this.projects.reachableOne(userId, choices.projectId);
      const picked = found && organizations.some((o) => o.id === found.organization.id) ? found : null;
      const group = picked && admitting.has(picked.organization.id) ? groups.find((g) => g.organizationId === picked.organization.id) : undefined;
      if (picked && group) group.projects.unshift({ id: picked.id, name: picked.name });
      else if (picked && admitting.has(picked.organization.id)) {
        groups.push({ organizationId: picked.organization.id, organizationName: picked.organization.name, projects: [{ id: picked.id, name: picked.name }] });
      }
    }
    const redirectUris = (await this.clients.find(pending.clientId))?.redirectUris ?? [pending.redirectUri];
    const restartQuery = new URLSearchParams(restart.slice(restart.indexOf('?') + 1));
    return {
      requestId,
      csrfToken,
      clientName: pending.clientName,
      clientIdHost,
      newClient: clientIdHost !== undefined && !(await this.grants.existsForUserAndClient(userId, pending.clientId)),
      localhostOnly: redirectUris.every(isLoopbackRedirect),
      redirectHost: redirectHost(pending.redirectUri),
      userEmail: (await this.users.findById(userId))?.email ?? '',
      switchAccountHref: `/login?next=${encodeURIComponent(restart)}`,
      groups,
      projectSearch: anyProject ? { action: restart.slice(0, restart.indexOf('?')), hidden: [...restartQuery.entries()], query: search.query } : undefined,
      refusedOrganizations: refused,
      closedOrganizations: await Promise.all(
        reached.closed.map(async (o) => ({ name: o.name, refusal: o.refusal, signInHref: await this.reach.signInHref(session, o.refusal, restart) })),
      ),
      createIn: anyProject ? undefined : await this.creatableIn(session, pending.clientId),
      newProject: choices.newProject,
      checkedPermissions: choices.permissions ?? pending.requestedPermissions,
      selectedProjectId: choices.projectId,
      error: choices.error,
    };
  }

  /**
   * Where the person may create a project for this client: the organisations they administer
   * that this session opens and that admit it (the consent page offers this only when there is no project to pick).
   */
  async creatableIn(session: SessionPrincipal, clientId: string): Promise<{ id: string; name: string }[]> {
    const administered = (await this.reach.organizationsOf(session)).open.filter((o) => o.role === 'admin');
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
