/**
 * Digests of agent tokens the database has already refused, so a client that keeps retrying
 * with a dead token costs no query (an agent whose token was revoked or expired often retries
 * in a loop).
 *
 * Sound because a refusal never turns into an acceptance: a token is issued only after its row
 * is committed, with 256 fresh random bits (no presented digest is ever issued later), and a
 * revoked or expired token never comes back. The one way a refused token could live again is a
 * database restored from a backup taken before its revocation; a restore restarts the service,
 * which starts with an empty set. Bounded: past `capacity` the oldest entry goes, so a flood of
 * made-up tokens only evicts, and costs at most `capacity` digests of memory (about 1.5 MB at
 * the default).
 */
export class RefusedTokens {
  private readonly digests = new Set<string>();
  /**
   * The digests in the order they came, as a ring: the slot at `next` holds the oldest once the
   * ring is full. Evicting through it costs the same whatever came before; taking the oldest
   * from the set's own iterator would walk past every entry deleted before it.
   */
  private readonly order: (string | undefined)[];
  private next = 0;

  constructor(readonly capacity = 10_000) {
    this.order = new Array<string | undefined>(capacity).fill(undefined);
  }

  has(digest: string): boolean {
    return this.digests.has(digest);
  }

  add(digest: string): void {
    if (this.digests.has(digest)) return;
    const oldest = this.order[this.next];
    if (oldest !== undefined) this.digests.delete(oldest);
    this.order[this.next] = digest;
    this.next = (this.next + 1) % this.capacity;
    this.digests.add(digest);
  }

  get size(): number {
    return this.digests.size;
  }
}
