import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { AGENT_PERMISSION_NAMES, isAgentPermission } from '@app/capabilities';
import { OAuthGrantStore, generateToken, hashToken, TOKEN_PREFIXES } from '@app/credential-store';
import { SessionPrincipal, SessionReach, SessionReachRefusal } from '@app/people';
import { isUuid } from '@app/database';
import { MembershipDirectory, ProjectCreator, ProjectDirectory, projectNameProblem, PROJECT_NAME_MAX_LENGTH } from '@app/tenancy';
import { errorRedirect } from './authorize-urls';
import { ClientPolicyService } from './client-policy/client-policy.service';
import { ConsentViewService, expiredRequest } from './consent-view.service';
import { OAuthPageError } from './oauth.errors';
import { digestsEqual, singleParam } from './oauth-params';
import { withResponseParams } from './redirect-uri';
import { AuthorizationCodesRepository } from './store/authorization-codes.repository';
import { AuthorizationRequestsRepository, PendingAuthorization } from './store/authorization-requests.repository';
import { OAuthClientsRepository } from './store/oauth-clients.repository';
import type { ConsentView } from './views/consent.view';

export type ConsentOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'form'; status: 400 | 403; view: ConsentView };

/**
 * The person's answer on the consent page. The request must be theirs, alive and undecided
 * (decided by one conditional update, so a request is answered once), and the CSRF token must
 * match; then Deny sends `access_denied`, and Approve (one reachable project, at least one
 * permission) creates the grant and a single-use code; a project (or a new project's organisation)
 * must be in an organisation this session opens (`SessionReach`: single sign-on). A person with no project to offer who may
 * create one (`ConsentViewService.creatableIn`) names it on the page instead: Approve then
 * creates the project (`project.created`) in the same transaction as the grant.
 */
@Injectable()
export class ConsentDecisionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly consent: ConsentViewService,
    private readonly requests: AuthorizationRequestsRepository,
    private readonly codes: AuthorizationCodesRepository,
    private readonly clients: OAuthClientsRepository,
    private readonly grants: OAuthGrantStore,
    private readonly projects: ProjectDirectory,
    private readonly memberships: MembershipDirectory,
    private readonly projectCreator: ProjectCreator,
    private readonly audit: AuditService,
    private readonly clientPolicies: ClientPolicyService,
    private readonly reach: SessionReach,
  ) {}

  async decide(session: SessionPrincipal, body: Record<string, unknown>, origin: RequestOrigin): Promise<ConsentOutcome> {
    const userId = session.userId;
    const requestId = singleParam(body, 'request_id').value;
    if (!requestId || !isUuid(requestId)) throw expiredRequest();
    const pending = await this.consent.findPending(requestId);
    if (!pending) throw expiredRequest();
    if (pending.userId !== userId) {
      throw new OAuthPageError(403, 'Signed in as someone else', 'This consent page was opened by another account. Start again from the application.');
    }
    const csrf = singleParam(body, 'csrf_token').value;
    if (!csrf || !digestsEqual(hashToken(csrf), pending.csrfHash)) {
      throw new OAuthPageError(403, 'Form expired', 'The form was missing its security token or the token was wrong. Start again from the application.');
    }

    const decision = singleParam(body, 'decision').value;
    if (decision === 'deny') return this.deny(pending, userId, origin);
    if (decision !== 'approve') throw new OAuthPageError(400, 'Invalid request', 'Choose Approve or Deny.');

    const rawPermissions = body.permissions;
    const submitted = rawPermissions === undefined ? [] : Array.isArray(rawPermissions) ? rawPermissions : [rawPermissions];
    const projectParam = singleParam(body, 'project_id');
    const newProject = body.new_project_name === undefined ? undefined : readNewProject(body);
    const permissions = AGENT_PERMISSION_NAMES.filter((p) => submitted.includes(p));
    const formError = async (status: 400 | 403, error?: string, newProjectError?: string): Promise<ConsentOutcome> => ({
      kind: 'form',
      status,
      view: await this.consent.view(requestId, csrf, session, {
        projectId: projectParam.value,
        permissions: permissions.length ? permissions : pending.requestedPermissions,
        error,
        newProject: newProject && { name: newProject.name, organizationId: newProject.organizationId, error: newProjectError },
      }),
    });
    if (!submitted.every((p) => isAgentPermission(p))) return formError(400, 'One of the submitted permissions does not exist.');
    if (projectParam.duplicate) return formError(400, 'Pick exactly one project.');
    const creating = !projectParam.value && newProject !== undefined;
    if (creating && newProject.problem) return formError(400, undefined, newProject.problem);
    if (creating && !newProject.organizationId) return formError(400, 'Pick the organisation of the new project.');
    if (!projectParam.value && !creating) return formError(400, 'Pick the project the application may work on.');
    if (permissions.length === 0) return formError(400, 'Tick at least one permission, or choose Deny.');

    const outcome = await this.dataSource.transaction(async (em) => {
      let project: { id: string; organizationId: string };
      if (creating) {
        const organizationId = newProject.organizationId!;
        if ((await this.memberships.roleOf(userId, organizationId, em)) !== 'admin') return { kind: 'cannot_create' as const };
        const closed = await this.reach.refusalIn(session, organizationId, em);
        if (closed) return { kind: 'closed' as const, refusal: closed };
        if (!(await this.clientPolicies.admits(organizationId, pending.clientId, em))) return { kind: 'refused' as const };
        if (!(await this.requests.markDecided(em, pending.id))) return { kind: 'expired' as const };
        project = await this.projectCreator.create(em, organizationId, newProject.name, { actorType: 'user', actorId: userId, origin });
      } else {
        const reachable = await this.projects.reachableOne(userId, projectParam.value!, em);
        if (!reachable) return { kind: 'unreachable' as const };
        const closed = await this.reach.refusalIn(session, reachable.organization.id, em);
        if (closed) return { kind: 'closed' as const, refusal: closed };
        if (!(await this.clientPolicies.admits(reachable.organization.id, pending.clientId, em))) return { kind: 'refused' as const };
        if (!(await this.requests.markDecided(em, pending.id))) return { kind: 'expired' as const };
        project = { id: reachable.id, organizationId: reachable.organization.id };
      }
      const grantId = await this.grants.create(em, {
        userId,
        clientId: pending.clientId,
        organizationId: project.organizationId,
        projectId: project.id,
        permissions,
        resource: pending.resource,
      });
      const code = generateToken(TOKEN_PREFIXES.authorizationCode);
      await this.codes.insert(
        em,
        {
          codeHash: hashToken(code),
          grantId,
          clientId: pending.clientId,
          redirectUri: pending.redirectUri,
          redirectUriSent: pending.redirectUriSent,
          codeChallenge: pending.codeChallenge,
          resource: pending.resource,
        },
        this.config.authCodeTtlSeconds,
      );
      await this.clients.markAuthorized(em, pending.clientId);
      await this.audit.record(em, {
        organizationId: project.organizationId,
        projectId: project.id,
        actorType: 'user',
        actorId: userId,
        action: 'consent.approved',
        targetType: 'oauth_grant',
        targetId: grantId,
        metadata: { clientId: pending.clientId, clientName: pending.clientName, permissions },
        origin,
      });
      return { kind: 'approved' as const, code };
    });
    if (outcome.kind === 'unreachable') return formError(403, 'You cannot give access to that project. Pick one of the projects listed.');
    if (outcome.kind === 'cannot_create') return formError(403, 'Only an administrator of that organisation can create a project in it.');
    if (outcome.kind === 'closed') return formError(403, CLOSED_ORGANIZATION_ERROR[outcome.refusal]);
    if (outcome.kind === 'refused') {
      return formError(403, "That project's organisation does not allow this application to connect. Pick one of the projects listed.");
    }
    if (outcome.kind === 'expired') throw expiredRequest();
    return {
      kind: 'redirect',
      location: withResponseParams(pending.redirectUri, { code: outcome.code, state: pending.state, iss: this.config.issuer }),
    };
  }

  private async deny(pending: PendingAuthorization, userId: string, origin: RequestOrigin): Promise<ConsentOutcome> {
    const denied = await this.dataSource.transaction(async (em) => {
      if (!(await this.requests.markDecided(em, pending.id))) return false;
      await this.audit.record(em, {
        organizationId: null,
        actorType: 'user',
        actorId: userId,
        action: 'consent.denied',
        targetType: 'oauth_client',
        targetId: pending.clientId,
        metadata: { clientId: pending.clientId, clientName: pending.clientName },
        origin,
      });
      return true;
    });
    if (!denied) throw expiredRequest();
    return {
      kind: 'redirect',
      location: errorRedirect(this.config.issuer, pending.redirectUri, 'access_denied', 'The person denied the request', pending.state),
    };
  }
}

/** Why a project of an organisation this session does not open cannot be given (`SessionReach`). */
const CLOSED_ORGANIZATION_ERROR: Readonly<Record<SessionReachRefusal, string>> = {
  sso_required: "That project's organisation requires single sign-on: sign in with single sign-on to give access to its projects.",
  session_predates_membership: "This session was issued before your current membership of that project's organisation began: sign in again to give access to its projects.",
};

/** The "Project name" (and its organisation) of a project to create on approval, with what is wrong with the name. */
function readNewProject(body: Record<string, unknown>): { name: string; organizationId?: string; problem?: string } {
  const nameParam = singleParam(body, 'new_project_name');
  const organization = singleParam(body, 'new_project_organization').value;
  const organizationId = organization && isUuid(organization) ? organization : undefined;
  if (nameParam.duplicate) return { name: '', organizationId, problem: 'Enter one project name.' };
  const name = nameParam.value ?? '';
  const problem = projectNameProblem(name);
  if (problem === 'empty') return { name, organizationId, problem: 'Enter a project name.' };
  if (problem === 'too_long') return { name, organizationId, problem: `Project name must be at most ${PROJECT_NAME_MAX_LENGTH} characters.` };
  if (problem === 'unsafe') return { name, organizationId, problem: 'Project name must not contain control characters or bidirectional formatting characters.' };
  return { name, organizationId };
}
