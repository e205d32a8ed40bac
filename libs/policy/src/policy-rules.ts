import Ajv, { type ErrorObject } from 'ajv';
import { CAPABILITY_RISKS, type CapabilityRisk } from '@app/capabilities';
import { DomainError } from '@app/common';

/** The kinds of agent credential a rule can name (SPEC §10). */
export const CREDENTIAL_KINDS = ['oauth', 'id_jag', 'derived'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export const POLICY_EFFECTS = ['allow', 'deny', 'approve'] as const;
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];

/** Who may approve a call a rule holds for approval (the `approve` effect, SPEC §10). */
export interface ApprovalSettings {
  approvers: 'admins' | 'members' | { userIds: string[] };
  count?: 1 | 2;
  selfApproval?: boolean;
  ttlSeconds?: number;
}

/** One rule of an organisation's policy; every match field left out matches any call. */
export interface PolicyRule {
  id: string;
  description?: string;
  projects?: string[];
  tools?: string[];
  risk?: CapabilityRisk[];
  credentialKinds?: CredentialKind[];
  clients?: string[];
  /** A CEL condition over the call (docs/policy.md "Conditions"). */
  when?: string;
  effect: PolicyEffect;
  approval?: ApprovalSettings;
}

/** The approval settings with their defaults filled in (SPEC §10: one approval, no self-approval, 600 s). */
export function approvalSettings(rule: PolicyRule): Required<ApprovalSettings> {
  const a = rule.approval ?? { approvers: 'admins' };
  return { approvers: a.approvers, count: a.count ?? 1, selfApproval: a.selfApproval ?? false, ttlSeconds: a.ttlSeconds ?? 600 };
}

export const MAX_RULES = 100;
export const MAX_CONDITION_LENGTH = 2000;

/**
 * Where a policy is wrong: the rule (its id and index), the field, and for a condition the
 * position in its text (0-based). Answered 400 `invalid_policy`; the dashboard's editor marks
 * the position.
 */
export class InvalidPolicyError extends DomainError {
  constructor(
    readonly problem: string,
    readonly where: { index?: number; ruleId?: string; field?: string; position?: number } = {},
  ) {
    super('invalid_policy', describe(problem, where), 'invalid_input');
  }
}

function describe(problem: string, where: InvalidPolicyError['where']): string {
  if (where.index === undefined) return `Invalid policy: ${problem}`;
  const rule = where.ruleId !== undefined ? `rule "${where.ruleId}" (rules[${where.index}])` : `rules[${where.index}]`;
  const field = where.field ? `, ${where.field}` : '';
  const position = where.position !== undefined ? ` at position ${where.position}` : '';
  return `Invalid policy: ${rule}${field}${position}: ${problem}`;
}

const stringList = (item: object, maxItems = 100) => ({ type: 'array', items: item, minItems: 1, maxItems, uniqueItems: true });
/** An id as the API writes them (lower case), so that a rule's ids compare as stored. */
const UUID = { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' };

/** The JSON Schema of one rule (SPEC §10 "Policy"). */
const RULE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'effect'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$' },
    description: { type: 'string', maxLength: 500 },
    projects: stringList(UUID),
    tools: stringList({ type: 'string', minLength: 1, maxLength: 64 }),
    risk: stringList({ enum: [...CAPABILITY_RISKS] }),
    credentialKinds: stringList({ enum: [...CREDENTIAL_KINDS] }),
    clients: stringList({ type: 'string', minLength: 1, maxLength: 2048 }),
    when: { type: 'string', minLength: 1, maxLength: MAX_CONDITION_LENGTH },
    effect: { enum: [...POLICY_EFFECTS] },
    approval: {
      type: 'object',
      additionalProperties: false,
      required: ['approvers'],
      properties: {
        approvers: {
          oneOf: [
            { enum: ['admins', 'members'] },
            { type: 'object', additionalProperties: false, required: ['userIds'], properties: { userIds: stringList(UUID, 50) } },
          ],
        },
        count: { enum: [1, 2] },
        selfApproval: { type: 'boolean' },
        ttlSeconds: { type: 'integer', minimum: 60, maximum: 86400 },
      },
    },
  },
} as const;

const validateRule = new Ajv({ allErrors: false, strict: true }).compile(RULE_SCHEMA);

/**
 * Checks the shape of a list of rules (not their conditions, which `compilePolicy` compiles):
 * the schema of each rule, unique ids, tools the registry knows, `approval` only on an `approve`
 * rule. Throws `InvalidPolicyError` naming the first rule at fault.
 */
export function checkRules(input: unknown, knownTools: ReadonlySet<string>): PolicyRule[] {
  if (!Array.isArray(input)) throw new InvalidPolicyError('rules must be an array');
  if (input.length > MAX_RULES) throw new InvalidPolicyError(`at most ${MAX_RULES} rules`);
  const seen = new Set<string>();
  input.forEach((rule: unknown, index) => {
    const ruleId = typeof (rule as { id?: unknown } | null)?.id === 'string' ? (rule as { id: string }).id : undefined;
    if (!validateRule(rule)) throw new InvalidPolicyError(schemaProblem(validateRule.errors?.[0]), { index, ruleId, field: fieldOf(validateRule.errors?.[0]) });
    const r = rule as PolicyRule;
    if (seen.has(r.id)) throw new InvalidPolicyError('the id is used by an earlier rule', { index, ruleId, field: 'id' });
    seen.add(r.id);
    const unknown = r.tools?.find((t) => !knownTools.has(t));
    if (unknown !== undefined) throw new InvalidPolicyError(`no tool is named ${JSON.stringify(unknown)}`, { index, ruleId, field: 'tools' });
    if (r.approval && r.effect !== 'approve') {
      throw new InvalidPolicyError('approval is only for a rule whose effect is "approve"', { index, ruleId, field: 'approval' });
    }
    if (!r.approval && r.effect === 'approve') {
      throw new InvalidPolicyError('a rule whose effect is "approve" names its approvers in approval', { index, ruleId, field: 'approval' });
    }
  });
  return input as PolicyRule[];
}

function fieldOf(error: ErrorObject | undefined): string | undefined {
  if (!error) return undefined;
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : undefined;
  const extra = error.keyword === 'additionalProperties' ? (error.params as { additionalProperty: string }).additionalProperty : undefined;
  return [path, missing ?? extra].filter(Boolean).join('.') || undefined;
}

function schemaProblem(error: ErrorObject | undefined): string {
  if (!error) return 'not a rule';
  if (error.keyword === 'additionalProperties') return 'unknown field';
  if (error.keyword === 'enum') return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return error.message ?? 'invalid';
}
