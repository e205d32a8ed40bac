import { compileCondition, ConditionError, type ConditionInput } from './policy-conditions';

const call = (args: Record<string, unknown>, over: Partial<ConditionInput> = {}): ConditionInput => ({
  tool: 'update_task',
  args,
  risk: 'write',
  credential: { kind: 'derived', id: 'token' },
  client: null,
  person: null,
  project: { id: 'p', name: 'Project' },
  now: new Date('2026-11-28T12:00:00Z'),
  ...over,
});

describe('policy conditions', () => {
  it('reads args with has(), compares whole numbers as int and times as timestamps', () => {
    expect(compileCondition('has(args.status) && args.status == "done"')(call({ status: 'done' }))).toBe(true);
    expect(compileCondition('has(args.status) && args.status == "done"')(call({}))).toBe(false);
    expect(compileCondition('args.limit == 20 && type(args.limit) == int')(call({ limit: 20 }))).toBe(true);
    expect(compileCondition('now > timestamp("2026-01-01T00:00:00Z")')(call({}))).toBe(true);
  });

  it('throws at evaluation when a key is missing or person is null', () => {
    expect(() => compileCondition('args.title == "x"')(call({}))).toThrow(/title/);
    expect(() => compileCondition('person.role == "admin"')(call({}))).toThrow();
  });

  it('runs matches with re2js, also in several places of one condition', () => {
    const condition = compileCondition('args.a.matches("^x+$") || (args.b.matches("(a+)+$") && tool.matches("update"))');
    expect(condition(call({ a: 'y', b: `${'a'.repeat(10_000)}` }))).toBe(true);
    expect(condition(call({ a: 'y', b: `${'a'.repeat(10_000)}b` }))).toBe(false);
    expect(condition(call({ a: 'xx', b: 'b' }))).toBe(true);
  });

  it.each([
    ['args.status == ', 15, /Unexpected token/],
    ['args.t.matches(args.p)', 15, /string literal pattern only/],
    ['args.t._re2_matches("a")', 0, /unknown function/],
    ['args.t.matches("(a")', 15, /invalid pattern/],
  ])('refuses %s with its position', (source, position, message) => {
    let error: unknown;
    try {
      compileCondition(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConditionError);
    expect((error as ConditionError).message).toMatch(message);
    expect((error as ConditionError).position).toBe(position);
  });
});
