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

  constructor(readonly capacity = 10_000) {}

  has(digest: string): boolean {
    return this.digests.has(digest);
  }

  add(digest: string): void {
    if (this.digests.has(digest)) return;
    if (this.digests.size >= this.capacity) {
      const oldest = this.digests.values().next().value as string;
      this.digests.delete(oldest);
    }
    this.digests.add(digest);
  }

  get size(): number {
    return this.digests.size;
  }
}
