/**
 * A background job's rounds on each instance: `run` once, then again `everyMs` after each round
 * ends (never two at once); `soon` brings the next one forward (during a round: right after it);
 * a round that fails is reported to `failed` and the rounds go on. The timers never keep the
 * process alive; `stop` waits for the round in progress.
 */
export class Rounds {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  /** A `soon` asked during a round: the delay of the next one. */
  private again: number | undefined;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly everyMs: number,
    private readonly failed: (error: Error) => void,
  ) {}

  start(delayMs = 0): void {
    this.stopped = false;
    this.schedule(delayMs);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** The next round within `delayMs` (after the one in progress, if any). */
  soon(delayMs: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = Math.min(this.again ?? delayMs, delayMs);
      return;
    }
    this.schedule(delayMs);
  }

  /** Waits for the round in progress, then runs one now (tests and the command line). */
  async now(): Promise<void> {
    await this.running;
    await this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.run()
        .catch((error: unknown) => this.failed(error as Error))
        .finally(() => {
          this.running = undefined;
          const again = this.again;
          this.again = undefined;
          this.schedule(again ?? this.everyMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
