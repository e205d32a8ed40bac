import { Injectable } from '@nestjs/common';

/** How many written events this instance keeps for its sealer; beyond that the oldest go (the sealer reads those back). */
export const WRITTEN_EVENTS_KEPT = 2000;

/**
 * Tells this instance's sealer that a record was just written, so that it seals soon after the
 * write commits instead of at its next round. Records written by other instances are found by
 * the rounds.
 *
 * It also hands the sealer the events of buffered records this instance has just written
 * unsealed (`written`: their chain's head was held too long, or a full batch of older records
 * was still to seal; see `AuditSealer.writeSealed`), so that sealing them does not read back
 * what the instance already holds. That is the same hash as reading them back: a buffered record's event is plain JSON data
 * (strings, finite numbers, booleans, null; built from typed fields only), written as
 * `JSON.stringify`'s text into a `jsonb` column, which keeps every string and the exact decimal
 * of every number (so `JSON.parse` of what it gives back is the same value), and RFC 8785 orders
 * the keys itself; nothing changes such a row's event before it is sealed (only refusal
 * aggregates are updated unsealed, and they never come through here). An event not found here —
 * written by another instance, before a restart, or pushed out — is read back as before.
 */
@Injectable()
export class SealingNudge {
  private listener: (() => void) | undefined;
  private readonly events = new Map<string, Record<string, unknown>>();

  listen(listener: () => void): void {
    this.listener = listener;
  }

  nudge(): void {
    this.listener?.();
  }

  /** Committed buffered records' events, by record id, then a nudge. */
  written(records: { id: string; event: Record<string, unknown> }[]): void {
    for (const record of records) this.events.set(record.id, record.event);
    for (const id of this.events.keys()) {
      if (this.events.size <= WRITTEN_EVENTS_KEPT) break;
      this.events.delete(id);
    }
    this.nudge();
  }

  /** The event of a record this instance wrote, handed over once (the sealer seals it now). */
  take(id: string): Record<string, unknown> | undefined {
    const event = this.events.get(id);
    if (event) this.events.delete(id);
    return event;
  }
}
