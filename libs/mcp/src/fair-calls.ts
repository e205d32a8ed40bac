/**
 * Tool calls in progress on this instance, shared fairly between organisations: at most
 * `capacity` run at once (`MCP_MAX_CONCURRENT_TOOL_CALLS`); past that, each call waits in its
 * organisation's queue, and every call that ends hands its place to the next organisation in
 * turn (round robin over the organisations waiting), so one organisation's flood of calls (a
 * batch of a hundred, many connections) never stands between another organisation and the
 * database: the other's call waits for one call to end, not for the flood. Work-conserving:
 * below capacity nothing waits, whoever calls. A few map operations per call, no timer.
 */
export class FairCalls {
  private active = 0;
  /** The organisations with calls waiting, in turn order (a Map keeps insertion order). */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(readonly capacity: number) {}

  /** Takes a place for a call of `organizationId`: undefined when it may run now, else a promise of the place. */
  acquire(organizationId: string): Promise<void> | undefined {
    if (this.capacity <= 0) return undefined;
    if (this.active < this.capacity && this.waiting.size === 0) {
      this.active++;
      return undefined;
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(organizationId);
      if (queue) queue.push(resolve);
      else this.waiting.set(organizationId, [resolve]);
    });
  }

  /** Ends a call: its place goes to the first organisation in turn, which then goes last. */
  release(): void {
    if (this.capacity <= 0) return;
    const next = this.waiting.entries().next();
    if (next.done) {
      this.active--;
      return;
    }
    const [organizationId, queue] = next.value;
    const resolve = queue.shift()!;
    this.waiting.delete(organizationId);
    if (queue.length) this.waiting.set(organizationId, queue);
    resolve();
  }

  /** Calls running and calls waiting (for metrics and tests). */
  get load(): { active: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return { active: this.active, waiting };
  }
}
