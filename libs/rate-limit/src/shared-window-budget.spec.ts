import { Logger } from '@nestjs/common';
import type { RateLimitLeasesRepository } from './rate-limit-leases.repository';
import { WindowBudget } from './shared-window-budget';

/** The database's upsert, in memory: never grants past the limit. */
function fakeLeases() {
  const hits = new Map<string, number>();
  let grants = 0;
  const repository = {
    async grant(key: string, ask: number, limit: number): Promise<number> {
      grants++;
      const used = hits.get(key) ?? 0;
      const granted = Math.min(ask, Math.max(0, limit - used));
      hits.set(key, used + granted);
      return granted;
    },
  } as unknown as RateLimitLeasesRepository;
  return { repository, grants: () => grants };
}

const logger = new Logger('test');
const t0 = 1_800_000_000_000; // a window boundary (a multiple of 60 s)

describe('WindowBudget', () => {
  it('on the embedded database: the whole limit in memory, per window, nothing spent by a refusal', () => {
    const budget = new WindowBudget('b', 60_000, undefined, logger);
    expect(budget.take('k', 5, 3, t0)).toBe(true);
    expect(budget.take('k', 5, 3, t0 + 1)).toBe(false);
    expect(budget.take('k', 5, 2, t0 + 2)).toBe(true);
    expect(budget.take('k', 5, 1, t0 + 3)).toBe(false);
    budget.giveBack('k', 1, t0 + 4);
    expect(budget.take('k', 5, 1, t0 + 5)).toBe(true);
    expect(budget.take('k', 5, 5, t0 + 60_000)).toBe(true);
    expect(budget.secondsLeft(t0 + 60_000 + 20_500)).toBe(40);
  });

  it('two instances sharing one budget admit the limit less what each holds unspent, never more', async () => {
    const { repository, grants } = fakeLeases();
    const [a, b] = [new WindowBudget('b', 60_000, repository, logger), new WindowBudget('b', 60_000, repository, logger)];
    let admitted = 0;
    for (let i = 0; i < 400; i++) {
      const budget = i % 2 ? b : a;
      if (await budget.take('k', 100, 1, t0 + i)) admitted++;
    }
    expect(admitted).toBeLessThanOrEqual(100);
    expect(admitted).toBeGreaterThanOrEqual(94);
    // Leases of 2, not a query per request; refusals once exhausted cost no query.
    expect(grants()).toBeLessThan(80);
  });

  it('answers from memory while a lease lasts (a boolean, not a promise) and refuses a batch larger than the limit at once', async () => {
    const { repository } = fakeLeases();
    const budget = new WindowBudget('b', 60_000, repository, logger);
    expect(await budget.take('k', 1000, 1, t0)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.take('k', 1000, 1, t0 + 1)).toBe(true);
    expect(budget.take('k', 1000, 1001, t0 + 2)).toBe(false);
  });
});
