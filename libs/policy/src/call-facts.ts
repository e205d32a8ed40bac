import type { EntityManager } from 'typeorm';
import type { CapabilityRisk } from '@app/capabilities';
import { NotFoundError } from '@app/common';
import { OAuthGrantStore } from '@app/credential-store';
import { MembershipDirectory, ProjectDirectory, UserDirectory } from '@app/tenancy';
import type { CallFacts } from './compiled-policy';
import type { ConditionInput } from './policy-conditions';
import type { CredentialKind } from './policy-rules';

/** The credential an agent call comes with (an agent principal has these fields). */
export interface AgentCall {
  organizationId: string;
  projectId: string;
  tokenId: string;
  serviceKeyId: string | null;
  grantId: string | null;
  clientId: string | null;
  userId: string | null;
  /** The organisation's policy version read with the credential at the start of the request. */
  policyVersion: number;
}

/** The services the facts of a call are read through (each table through its owning library). */
export interface FactSources {
  /** The data source's manager (the facts are read outside any transaction). */
  em: EntityManager;
  grants: OAuthGrantStore;
  users: UserDirectory;
  memberships: MembershipDirectory;
  projects: ProjectDirectory;
  /** The client's name (null: unknown, or no provider of names in this application). */
  clientName(clientId: string): Promise<string | null>;
}

/**
 * The facts of one call, each read at most once and only when a rule asks for it: a call that no
 * rule with a credential kind or a condition reaches reads nothing.
 */
export class LazyCallFacts implements CallFacts {
  private kind?: Promise<CredentialKind>;
  private input?: Promise<ConditionInput>;

  constructor(
    private readonly sources: FactSources,
    private readonly call: AgentCall,
    private readonly tool: string,
    private readonly risk: CapabilityRisk,
    private readonly args: Record<string, unknown>,
    /** The kind when the caller knows it (a sample call of `POST …/policy/evaluate`). */
    private readonly knownKind?: CredentialKind,
  ) {}

  credentialKind(): Promise<CredentialKind> {
    this.kind ??= this.readKind();
    return this.kind;
  }

  conditionInput(): Promise<ConditionInput> {
    this.input ??= this.readInput();
    return this.input;
  }

  private async readKind(): Promise<CredentialKind> {
    const { grantId, organizationId } = this.call;
    if (this.knownKind) return this.knownKind;
    if (!grantId) return 'derived';
    const grant = await this.sources.grants.findInOrganization(this.sources.em, organizationId, grantId);
    return grant?.idJagIssuer ? 'id_jag' : 'oauth';
  }

  private async readInput(): Promise<ConditionInput> {
    const { organizationId, projectId, tokenId, clientId, userId } = this.call;
    const [kind, project, person, clientName] = await Promise.all([
      this.credentialKind(),
      this.sources.projects.find(organizationId, projectId),
      userId ? this.person(userId) : Promise.resolve(null),
      clientId ? this.sources.clientName(clientId) : Promise.resolve(null),
    ]);
    if (!project) throw new NotFoundError('Project');
    return {
      tool: this.tool,
      args: this.args,
      risk: this.risk,
      credential: { kind, id: tokenId },
      client: clientId ? { id: clientId, name: clientName } : null,
      person,
      project: { id: project.id, name: project.name },
      now: new Date(),
    };
  }

  private async person(userId: string): Promise<ConditionInput['person']> {
    const [profile, role] = await Promise.all([
      this.sources.users.findById(userId),
      this.sources.memberships.roleOf(userId, this.call.organizationId),
    ]);
    return profile ? { id: profile.id, email: profile.email, role } : null;
  }
}
