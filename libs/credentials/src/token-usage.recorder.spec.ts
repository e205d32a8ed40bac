import type { DataSource } from 'typeorm';
import type { AgentTokenLookup } from '@app/credential-store';
import { TokenUsageRecorder } from './token-usage.recorder';

/** A store whose writes end when the test says: a write can be held under way. */
function heldStore() {
  const writes: string[][] = [];
  const ends: (() => void)[] = [];
  const store = {
    recordUses: (uses: Map<string, Date>) =>
      new Promise<void>((resolve) => {
        writes.push([...uses.keys()]);
        ends.push(resolve);
      }),
  };
  return { store: store as unknown as AgentTokenLookup, writes, endWrite: () => ends.shift()!() };
}

describe('TokenUsageRecorder.flush', () => {
  const dataSource = { isInitialized: true } as DataSource;

  it('writes, once it resolves, a use recorded while another write was under way', async () => {
    const { store, writes, endWrite } = heldStore();
    const recorder = new TokenUsageRecorder(dataSource, store);
    recorder.record('a');
    const first = recorder.flush();
    expect(writes).toEqual([['a']]);

    // Recorded while the first write is under way (the timer's, say): not in that write.
    recorder.record('b');
    let done = false;
    const second = recorder.flush().then(() => (done = true));
    const third = recorder.flush();
    endWrite();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([['a'], ['b']]);
    expect(done).toBe(false);
    endWrite();
    await Promise.all([second, third]);
    expect(done).toBe(true);
    expect(writes).toEqual([['a'], ['b']]);
  });

  it('shares one write between calls when none is under way', async () => {
    const { store, writes, endWrite } = heldStore();
    const recorder = new TokenUsageRecorder(dataSource, store);
    recorder.record('a');
    const calls = [recorder.flush(), recorder.flush()];
    endWrite();
    await Promise.all(calls);
    expect(writes).toEqual([['a']]);
  });
});
