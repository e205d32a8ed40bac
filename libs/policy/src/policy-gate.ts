import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { AuditService } from '@app/audit';
import { CapabilityRegistry } from '@app/capabilities';
import { canonicalSha256, DomainError } from '@app/common';
import { OAuthGrantStore } from '@app/credential-store';
import { MembershipDirectory, ProjectDirectory, UserDirectory } from '@app/tenancy';
import { ApprovalRequests } from './approvals/approval-requests';
import { type AgentCall, type FactSources, LazyCallFacts } from './call-facts';
import { CLIENT_NAMES, type ClientNames } from './client-names';
import { CompiledPolicy, type PolicyDecision } from './compiled-policy';
import { PolicyRepository } from './policy.repository';
import { InvalidPolicyError, type PolicyRule } from './policy-rules';

/** The tool error text of a refusal (SPEC §10 "Deny"). */
export function refusalText(ruleId: string): string {
  return `Refused by the organisation's policy (rule "${ruleId}").`;
}

/** A call the policy refuses: the MCP layer answers it as a tool error with exactly this text. */
export class PolicyRefusal extends DomainError {
  constructor(readonly ruleId: string) {
    super('policy_denied', refusalText(ruleId), 'forbidden');
  }
}

interface LoadedPolicy {
  version: number;
  result: CompiledPolicy | StoredPolicyFault;
}

interface CachedPolicy {
  version: number;
  policy: Promise<LoadedPolicy>;
}

/** A stored policy this instance cannot compile (it compiled when saved): every call is refused under the rule at fault. */
interface StoredPolicyFault {
  fault: PolicyRule;
  problem: string;
}

/**
 * The policy check of every tool call, before its capability runs. Each instance keeps each
 * organisation's policy compiled once per version; every request learns the current version with
 * its credential (the agent-token lookup calls `organization_policy_version`, in the statement it
 * makes anyway), so a policy saved through any instance applies on all of them from their next
 * request, with no timer. A refusal is audited (`tool.denied`) before it is answered.
 */
@Injectable()
export class PolicyGate {
  private readonly logger = new Logger('Policy');
  private readonly compiled = new Map<string, CachedPolicy>();
  private readonly sources: FactSources;

  constructor(
    private readonly policies: PolicyRepository,
    private readonly registry: CapabilityRegistry,
    private readonly audit: AuditService,
    private readonly dataSource: DataSource,
    private readonly approvals: ApprovalRequests,
    grants: OAuthGrantStore,
    users: UserDirectory,
    memberships: MembershipDirectory,
    projects: ProjectDirectory,
    moduleRef: ModuleRef,
  ) {
    let names: ClientNames | null | undefined;
    const clientName = async (clientId: string) => {
      names ??= providedClientNames(moduleRef);
      return names ? names.nameOf(clientId) : null;
    };
    this.sources = { em: dataSource.manager, grants, users, memberships, projects, clientName };
  }

  /** Where the facts of a call are read (also for the sample calls of `PolicyService.evaluate`). */
  get factSources(): FactSources {
    return this.sources;
  }

  /**
   * Lets the call through, or throws `PolicyRefusal` once the refusal is recorded; under an
   * `approve` rule, lets it through only by consuming its approval (else `ApprovalRequired` or
   * `ApprovalUnavailable`). `args` are the validated arguments.
   */
  async admit(call: AgentCall, tool: string, args: Record<string, unknown>): Promise<void> {
    const version = call.policyVersion;
    if (version === 0) {
      this.compiled.delete(call.organizationId);
      return;
    }
    const risk = this.registry.riskOf(tool);
    if (!risk) throw new Error(`PolicyGate.admit: ${tool} is not a registered tool`);
    const { version: applied, result: policy } = await this.current(call.organizationId, version);
    const facts = new LazyCallFacts(this.sources, call, tool, risk, args);
    let decision: PolicyDecision;
    if ('fault' in policy) {
      this.logger.error(`the policy of organisation ${call.organizationId} (version ${applied}) does not compile at rule "${policy.fault.id}": ${policy.problem}; calls are refused`);
      decision = { effect: 'deny', rule: policy.fault, evaluationError: policy.problem };
    } else {
      decision = await policy.decide({ projectId: call.projectId, tool, risk, clientId: call.clientId }, facts);
    }
    if (decision.rule === null || decision.effect === 'allow') return;
    if ('evaluationError' in decision) {
      this.logger.warn(`rule "${decision.rule.id}" of organisation ${call.organizationId} failed to evaluate (${decision.evaluationError}); the call to ${tool} is refused`);
    }
    if (decision.effect === 'approve' && !('evaluationError' in decision)) {
      await this.approvals.hold(call, tool, args, decision.rule, await facts.credentialKind());
      return;
    }
    await this.recordRefusal(call, tool, args, decision.rule.id, applied, await facts.credentialKind());
    throw new PolicyRefusal(decision.rule.id);
  }

  /**
   * The compiled policy of this version (or a later one saved meanwhile), compiled once per
   * instance (concurrent calls share it), with the version it is.
   */
  private async current(organizationId: string, version: number): Promise<LoadedPolicy> {
    const cached = this.compiled.get(organizationId);
    if (cached && cached.version === version) return cached.policy;
    const entry: CachedPolicy = { version, policy: this.load(organizationId) };
    this.compiled.set(organizationId, entry);
    try {
      const loaded = await entry.policy;
      // The row may have moved on between the version read and the load: the entry holds what was compiled.
      entry.version = loaded.version;
      return loaded;
    } catch (error) {
      if (this.compiled.get(organizationId) === entry) this.compiled.delete(organizationId);
      throw error;
    }
  }

  private async load(organizationId: string): Promise<LoadedPolicy> {
    const stored = await this.policies.find(organizationId);
    try {
      // Tools named by a stored rule stay valid even if a later release drops one.
      const known = new Set([...this.registry.names, ...stored.rules.flatMap((r) => r.tools ?? [])]);
      return { version: stored.version, result: CompiledPolicy.compile(stored.rules, known) };
    } catch (error) {
      if (!(error instanceof InvalidPolicyError)) throw error;
      const fault = stored.rules[error.where.index ?? 0] ?? { id: 'policy', effect: 'deny' as const };
      return { version: stored.version, result: { fault, problem: error.message } };
    }
  }

  private async recordRefusal(
    call: AgentCall,
    tool: string,
    args: Record<string, unknown>,
    ruleId: string,
    policyVersion: number,
    kind: string,
  ): Promise<void> {
    const source = call.serviceKeyId ? { serviceKeyId: call.serviceKeyId } : { grantId: call.grantId, clientId: call.clientId };
    await this.audit.record(this.dataSource.manager, {
      organizationId: call.organizationId,
      projectId: call.projectId,
      actorType: 'agent_token',
      actorId: call.tokenId,
      action: 'tool.denied',
      targetType: 'tool',
      targetId: tool,
      metadata: { tool, ruleId, policyVersion, argumentsSha256: canonicalSha256(args), credentialKind: kind, ...source },
    });
  }
}

/** The application's provider of client names (`CLIENT_NAMES`), or null when it has none. */
function providedClientNames(moduleRef: ModuleRef): ClientNames | null {
  try {
    return moduleRef.get<ClientNames>(CLIENT_NAMES, { strict: false });
  } catch {
    return null;
  }
}
