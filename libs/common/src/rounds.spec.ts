import { Rounds } from './rounds';

describe('Rounds', () => {
  const waitUntil = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('runs one round at a time, again after each; a failure is reported and the rounds go on; stop waits for the round in progress', async () => {
    let inRound = 0;
    let most = 0;
    let count = 0;
    const failures: string[] = [];
    let release: (() => void) | undefined;
    const rounds = new Rounds(
      async () => {
        inRound += 1;
        most = Math.max(most, inRound);
        count += 1;
        if (count === 2) {
          inRound -= 1;
          throw new Error('second failed');
        }
        if (count === 4) await new Promise<void>((resolve) => (release = resolve));
        inRound -= 1;
      },
      1,
      (error) => failures.push(error.message),
    );
    rounds.start();
    await waitUntil(() => release !== undefined);
    rounds.soon(0);
    rounds.soon(0);
    const stopped = rounds.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    release!();
    await stopped;
    expect(count).toBe(4);
    expect(most).toBe(1);
    expect(failures).toEqual(['second failed']);
  });

  it('soon brings the next round forward; during a round, right after it', async () => {
    let count = 0;
    const rounds = new Rounds(async () => void (count += 1), 60_000, () => undefined);
    rounds.start();
    await waitUntil(() => count === 1);
    rounds.soon(0);
    await waitUntil(() => count === 2);
    await rounds.stop();
    rounds.soon(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(count).toBe(2);
  });
});
