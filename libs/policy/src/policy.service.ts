import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService } from '@app/audit';
import { AGENT_PERMISSION_NAMES, CapabilityRegistry } from '@app/capabilities';
import { canonicalSha256, ConflictError, DomainError } from '@app/common';
import { MembershipDirectory, ProjectDirectory } from '@app/tenancy';
import { ApprovalDecisions } from './approvals/approval-decisions';
import { LazyCallFacts } from './call-facts';
import { CompiledPolicy } from './compiled-policy';
import type { EvaluatePolicyDto, PolicyDto, PolicyEvaluationDto } from './policy.dto';
import { PolicyGate } from './policy-gate';
import { PolicyRepository } from './policy.repository';
import { approvalSettings, InvalidPolicyError, type PolicyRule } from './policy-rules';

/**
 * An organisation's policy over agents' calls, for its admins (REST and the dashboard): read it,
 * replace it (optimistic concurrency on `version`, audited `policy.updated`), and try a sample
 * call against the saved rules or a draft. The per-call check is `PolicyGate`'s.
 */
@Injectable()
export class PolicyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly policies: PolicyRepository,
    private readonly registry: CapabilityRegistry,
    private readonly projects: ProjectDirectory,
    private readonly memberships: MembershipDirectory,
    private readonly audit: AuditService,
    private readonly gate: PolicyGate,
    private readonly approvals: ApprovalDecisions,
  ) {}

  get(organizationId: string): Promise<PolicyDto> {
    return this.policies.find(organizationId);
  }

  /**
   * Replaces the rules, from version `expected`: refused 400 `invalid_policy` (naming the rule and
   * position, also for an `approve` rule whose approvers cannot reach its `count`), 409
   * `policy_version_conflict` when another save came first.
   */
  async replace(organizationId: string, expected: number, input: unknown[], actor: AuditActor): Promise<PolicyDto> {
    const rules = await this.check(organizationId, input);
    await this.checkApprovers(organizationId, rules);
    return this.dataSource.transaction(async (em) => {
      const saved = await this.policies.replace(em, organizationId, expected, rules, actor.actorType === 'user' ? actor.actorId : null);
      if (!saved) {
        const current = await this.policies.find(organizationId, em);
        throw new ConflictError(
          'policy_version_conflict',
          `The policy is at version ${current.version}, not ${expected}: someone saved it meanwhile; reload it and make your change again`,
        );
      }
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'policy.updated',
        targetType: 'policy',
        targetId: organizationId,
        metadata: { oldVersion: expected, newVersion: saved.version, rulesSha256: canonicalSha256(saved.rules) },
      });
      // An approval under a rule that is gone or changed can no longer be consumed: voided now.
      await this.approvals.voidChangedRules(em, organizationId, saved.rules);
      return saved;
    });
  }

  /** The effect a call would get, and the rule that decides it, under the saved rules or `body.rules`. */
  async evaluate(organizationId: string, body: EvaluatePolicyDto): Promise<PolicyEvaluationDto> {
    const { call } = body;
    const rules = body.rules !== undefined ? await this.check(organizationId, body.rules) : (await this.policies.find(organizationId)).rules;
    const capability = this.registry.toolsetFor(AGENT_PERMISSION_NAMES).byName.get(call.tool);
    if (!capability) throw new DomainError('unknown_tool', `No tool is named ${JSON.stringify(call.tool)}`);
    const project = await this.projects.find(organizationId, call.projectId);
    if (!project) throw new DomainError('unknown_project', 'call.projectId is not a project of this organisation');
    const parsed = capability.definition.inputSchema.safeParse(call.args);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
      throw new DomainError('invalid_arguments', `Invalid arguments for tool ${call.tool}: ${issues.join('; ')}`);
    }
    const known = new Set([...this.registry.names, ...rules.flatMap((r) => r.tools ?? [])]);
    const policy = CompiledPolicy.compile(rules, known);
    const agentCall = {
      organizationId,
      projectId: project.id,
      tokenId: 'sample',
      serviceKeyId: null,
      grantId: null,
      clientId: call.clientId ?? null,
      userId: call.credentialKind === 'derived' ? null : (call.userId ?? null),
      policyVersion: 0,
    };
    const risk = capability.definition.risk;
    const facts = new LazyCallFacts(this.gate.factSources, agentCall, call.tool, risk, parsed.data as Record<string, unknown>, call.credentialKind);
    const decision = await policy.decide({ projectId: project.id, tool: call.tool, risk, clientId: agentCall.clientId }, facts);
    const rule = decision.rule ? { id: decision.rule.id, ...(decision.rule.description ? { description: decision.rule.description } : {}) } : null;
    return { effect: decision.effect, rule, ...('evaluationError' in decision ? { evaluationError: decision.evaluationError } : {}) };
  }

  /**
   * Each `approve` rule's approvers can reach its `count` today: named people must all be members,
   * and there must be at least `count` of them (admins, members or the named people). Whether the
   * requester may count is decided per call ("no one can approve").
   */
  private async checkApprovers(organizationId: string, rules: PolicyRule[]): Promise<void> {
    for (const [index, rule] of rules.entries()) {
      if (rule.effect !== 'approve') continue;
      const { approvers, count } = approvalSettings(rule);
      const ids = await this.memberships.memberIds(organizationId, approvers === 'admins' ? { role: 'admin' } : approvers === 'members' ? {} : { among: approvers.userIds });
      if (typeof approvers === 'object') {
        const stranger = approvers.userIds.find((id) => !ids.includes(id));
        if (stranger !== undefined) {
          throw new InvalidPolicyError(`${stranger} is not a member of this organisation`, { index, ruleId: rule.id, field: 'approval.approvers.userIds' });
        }
      }
      const available = ids.length;
      const noun = approvers === 'admins' ? 'admin' : approvers === 'members' ? 'member' : 'named approver';
      const who = available === 1 ? noun : `${noun}s`;
      if (available < count) {
        throw new InvalidPolicyError(`${count} approvals are needed but the organisation has ${available} ${who}`, { index, ruleId: rule.id, field: 'approval.count' });
      }
    }
  }

  /** Shapes, conditions, tools and projects of a list of rules, as a save checks them. */
  private async check(organizationId: string, input: unknown[]): Promise<PolicyRule[]> {
    CompiledPolicy.compile(input, new Set(this.registry.names));
    const rules = input as PolicyRule[];
    const named = [...new Set(rules.flatMap((r) => r.projects ?? []))];
    const found = await this.projects.namesOf(named);
    for (const [index, rule] of rules.entries()) {
      const foreign = rule.projects?.find((id) => found.get(id)?.organization.id !== organizationId);
      if (foreign !== undefined) {
        throw new InvalidPolicyError(`${foreign} is not a project of this organisation`, { index, ruleId: rule.id, field: 'projects' });
      }
    }
    return rules;
  }
}
