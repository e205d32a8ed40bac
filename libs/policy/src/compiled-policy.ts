import type { CapabilityRisk } from '@app/capabilities';
import { compileCondition, ConditionError, type CompiledCondition, type ConditionInput } from './policy-conditions';
import { checkRules, type CredentialKind, InvalidPolicyError, type PolicyEffect, type PolicyRule } from './policy-rules';

/** What a rule's match fields look at: known for every call without a database read, but the credential kind. */
export interface CallMatch {
  projectId: string;
  tool: string;
  risk: CapabilityRisk;
  clientId: string | null;
}

/**
 * The parts of a call a rule may need beyond `CallMatch`, read only when a rule needs them
 * (the credential kind tells an OAuth token from one traded for an ID-JAG only after a read).
 */
export interface CallFacts {
  credentialKind(): Promise<CredentialKind>;
  conditionInput(): Promise<ConditionInput>;
}

/** The outcome for one call: the rule that matched (none: the default allow) and its effect. */
export type PolicyDecision =
  | { effect: 'allow'; rule: null }
  | { effect: PolicyEffect; rule: PolicyRule }
  /** A condition that failed to evaluate: the call is refused under that rule. */
  | { effect: 'deny'; rule: PolicyRule; evaluationError: string };

interface CompiledRule {
  rule: PolicyRule;
  projects: ReadonlySet<string> | null;
  tools: ReadonlySet<string> | null;
  risk: ReadonlySet<string> | null;
  kinds: ReadonlySet<string> | null;
  clients: ReadonlySet<string> | null;
  when: CompiledCondition | null;
}

export const DEFAULT_ALLOW: PolicyDecision = Object.freeze({ effect: 'allow', rule: null });

/**
 * A policy's rules ready to decide calls: shapes checked and conditions compiled once (at save,
 * and once per version on each instance). `decide` matches in order; the first rule that matches
 * wins; no match allows.
 */
export class CompiledPolicy {
  private constructor(private readonly rules: readonly CompiledRule[]) {}

  static compile(input: unknown, knownTools: ReadonlySet<string>): CompiledPolicy {
    const rules = checkRules(input, knownTools);
    return new CompiledPolicy(rules.map((rule, index) => compileRule(rule, index)));
  }

  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  async decide(call: CallMatch, facts: CallFacts): Promise<PolicyDecision> {
    for (const compiled of this.rules) {
      if (!staticMatch(compiled, call)) continue;
      if (compiled.kinds && !compiled.kinds.has(await facts.credentialKind())) continue;
      if (compiled.when) {
        let holds: boolean;
        try {
          holds = compiled.when(await facts.conditionInput());
        } catch (error) {
          return { effect: 'deny', rule: compiled.rule, evaluationError: (error as Error).message.split('\n')[0] };
        }
        if (!holds) continue;
      }
      return { effect: compiled.rule.effect, rule: compiled.rule };
    }
    return DEFAULT_ALLOW;
  }
}

function staticMatch(rule: CompiledRule, call: CallMatch): boolean {
  return (
    (!rule.projects || rule.projects.has(call.projectId)) &&
    (!rule.tools || rule.tools.has(call.tool)) &&
    (!rule.risk || rule.risk.has(call.risk)) &&
    (!rule.clients || (call.clientId !== null && rule.clients.has(call.clientId)))
  );
}

function compileRule(rule: PolicyRule, index: number): CompiledRule {
  let when: CompiledCondition | null = null;
  if (rule.when !== undefined) {
    try {
      when = compileCondition(rule.when);
    } catch (error) {
      if (!(error instanceof ConditionError)) throw error;
      throw new InvalidPolicyError(error.message, { index, ruleId: rule.id, field: 'when', position: error.position });
    }
  }
  const set = (values: readonly string[] | undefined) => (values ? new Set(values) : null);
  return {
    rule,
    projects: rule.projects ? new Set(rule.projects.map((p) => p.toLowerCase())) : null,
    tools: set(rule.tools),
    risk: set(rule.risk),
    kinds: set(rule.credentialKinds),
    clients: set(rule.clients),
    when,
  };
}
