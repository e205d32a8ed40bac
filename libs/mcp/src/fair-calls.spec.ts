import { FairCalls } from './fair-calls';

describe('FairCalls', () => {
  it('lets calls run at once below capacity, whoever makes them', () => {
    const calls = new FairCalls(2);
    expect(calls.acquire('a')).toBeUndefined();
    expect(calls.acquire('a')).toBeUndefined();
    expect(calls.load).toEqual({ active: 2, waiting: 0 });
  });

  it("gives the next free place to another organisation before the flooding one's next call", async () => {
    const calls = new FairCalls(1);
    const order: string[] = [];
    expect(calls.acquire('flood')).toBeUndefined();
    const flood = Array.from({ length: 5 }, (_, i) => calls.acquire('flood')!.then(() => order.push(`flood ${i}`)));
    const other = calls.acquire('other')!.then(() => order.push('other'));
    calls.release();
    calls.release();
    await other;
    expect(order).toEqual(['flood 0', 'other']);
    for (let i = 0; i < 4; i++) calls.release();
    await Promise.all(flood);
    expect(order).toEqual(['flood 0', 'other', 'flood 1', 'flood 2', 'flood 3', 'flood 4']);
    calls.release();
    expect(calls.load).toEqual({ active: 0, waiting: 0 });
  });

  it('bounds nothing when the capacity is 0', () => {
    const calls = new FairCalls(0);
    for (let i = 0; i < 100; i++) expect(calls.acquire('a')).toBeUndefined();
  });
});
