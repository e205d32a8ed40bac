import { Environment } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/** The limits of a condition, checked when a policy is saved (SPEC §10). */
export const CONDITION_LIMITS = { maxAstNodes: 200, maxDepth: 20 } as const;

/** What a condition sees of a call (docs/policy.md "Conditions"). */
export interface ConditionInput {
  tool: string;
  args: Record<string, unknown>;
  risk: string;
  credential: { kind: string; id: string };
  client: { id: string; name: string | null } | null;
  person: { id: string; email: string; role: string | null } | null;
  project: { id: string; name: string };
  now: Date;
}

/** A condition compiled at save: run it on a call's variables; it throws when it cannot answer a boolean. */
export type CompiledCondition = (input: ConditionInput) => boolean;

/** A condition that does not compile, with where in its text (0-based). */
export class ConditionError extends Error {
  constructor(
    message: string,
    readonly position: number | undefined,
  ) {
    super(message);
  }
}

/**
 * The function `matches` is renamed to before evaluation: CEL's own `matches` runs JavaScript's
 * backtracking `RegExp` in cel-js, so every `x.matches("…")` is rewritten to this one, which runs
 * the pattern (compiled at save) with `re2js`, in time linear in the input.
 */
const LINEAR_MATCHES = '_re2_matches';

const environment = new Environment({ limits: { ...CONDITION_LIMITS, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 8 } })
  .registerVariable('tool', 'string')
  .registerVariable('args', 'map')
  .registerVariable('risk', 'string')
  .registerVariable('credential', 'map')
  .registerVariable('client', 'dyn')
  .registerVariable('person', 'dyn')
  .registerVariable('project', 'map')
  .registerVariable('now', 'google.protobuf.Timestamp')
  .registerFunction(`string.${LINEAR_MATCHES}(string): bool`, (text: string, pattern: string) => linearPattern(pattern).matcher(text).find());

/**
 * Patterns compiled with re2js; filled at save (`compileCondition`), so a call rarely compiles
 * one. Bounded (drafts tried on the policy page compile patterns too): when full it starts over,
 * and a pattern a call needs is compiled again, still in linear time.
 */
const patterns = new Map<string, RE2JS>();
const MAX_PATTERNS = 5000;

function linearPattern(pattern: string): RE2JS {
  let compiled = patterns.get(pattern);
  if (!compiled) {
    compiled = RE2JS.compile(pattern);
    if (patterns.size >= MAX_PATTERNS) patterns.clear();
    patterns.set(pattern, compiled);
  }
  return compiled;
}

interface AstNode {
  op: string;
  args: unknown;
  pos?: number;
  start?: number;
  end?: number;
}

type Parsed = ReturnType<Environment['parse']>;

/**
 * Compiles a condition with the limits of SPEC §10: a syntax error, more than 200 nodes or a
 * depth over 20, a type error (an unknown variable or function), and a `matches` whose pattern is
 * not a string literal (or not a valid RE2 pattern) are refused with their position.
 */
export function compileCondition(source: string): CompiledCondition {
  const parsed = parseOrThrow(source);
  const calls = matchesCalls(parsed.ast as AstNode);
  for (const call of calls) {
    if (call.name === LINEAR_MATCHES) throw new ConditionError(`unknown function ${LINEAR_MATCHES}`, call.node.pos);
    const pattern = call.argument;
    if (pattern?.op !== 'value' || typeof pattern.args !== 'string') {
      throw new ConditionError('matches takes a string literal pattern only', pattern?.start ?? pattern?.pos ?? call.node.pos);
    }
    try {
      linearPattern(pattern.args);
    } catch (error) {
      throw new ConditionError(`invalid pattern: ${(error as Error).message}`, pattern.pos);
    }
  }
  const checked = parsed.check();
  if (!checked.valid) throw new ConditionError(firstLine(checked.error?.message), positionOf(checked.error));
  if (checked.type !== 'bool' && checked.type !== 'dyn') throw new ConditionError(`the condition must be a boolean, not ${checked.type}`, 0);
  const runnable = calls.length ? rewriteMatches(source, calls) : parsed;
  return (input) => {
    const value: unknown = runnable(celVariables(input));
    if (typeof value !== 'boolean') throw new Error(`the condition answered ${typeof value}, not a boolean`);
    return value;
  };
}

function parseOrThrow(source: string): Parsed {
  try {
    return environment.parse(source);
  } catch (error) {
    throw new ConditionError(firstLine((error as Error).message), positionOf(error));
  }
}

interface MatchesCall {
  name: string;
  node: AstNode;
  receiver: AstNode;
  argument: AstNode | undefined;
}

/** Every receiver call of `matches` (and of the internal name, refused in a policy) in the tree. */
function matchesCalls(root: AstNode): MatchesCall[] {
  const found: MatchesCall[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object' || typeof (value as AstNode).op !== 'string') return;
    const node = value as AstNode;
    if (node.op === 'rcall' && Array.isArray(node.args)) {
      const [name, receiver, args] = node.args as [string, AstNode, AstNode[]];
      if (name === 'matches' || name === LINEAR_MATCHES) found.push({ name, node, receiver, argument: args?.[0] });
    }
    visit(node.args);
  };
  visit(root);
  return found;
}

/**
 * The same expression with each `.matches(` renamed: the name sits between the end of the
 * receiver and the start of the pattern. The result is parsed again and must hold exactly as
 * many linear calls as the original held `matches` calls.
 */
function rewriteMatches(source: string, calls: MatchesCall[]): Parsed {
  const edits = calls
    .map((call) => {
      const from = call.receiver.end ?? 0;
      const between = source.slice(from, call.argument!.start ?? from);
      const at = between.search(/\bmatches(?=\s*\(\s*$)/);
      if (at < 0) throw new ConditionError('matches could not be prepared', call.node.pos);
      return from + at;
    })
    .sort((a, b) => b - a);
  let rewritten = source;
  for (const at of edits) rewritten = rewritten.slice(0, at) + LINEAR_MATCHES + rewritten.slice(at + 'matches'.length);
  const parsed = parseOrThrow(rewritten);
  const after = matchesCalls(parsed.ast as AstNode);
  if (after.length !== calls.length || after.some((c) => c.name !== LINEAR_MATCHES)) throw new ConditionError('matches could not be prepared', 0);
  return parsed;
}

/** The call's variables as CEL values: whole JSON numbers become CEL `int` (BigInt). */
function celVariables(input: ConditionInput): Record<string, unknown> {
  return { ...input, args: toCel(input.args) };
}

function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  }
  return value;
}

function firstLine(message: string | undefined): string {
  return (message ?? 'invalid condition').split('\n')[0].trim();
}

function positionOf(error: unknown): number | undefined {
  const node = (error as { node?: { pos?: unknown; start?: unknown } } | null)?.node;
  const pos = node?.pos ?? node?.start;
  return typeof pos === 'number' ? pos : undefined;
}
