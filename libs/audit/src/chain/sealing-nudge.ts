import { Injectable } from '@nestjs/common';

/**
 * Tells this instance's sealer that a record was just written, so that it seals soon after the
 * write commits instead of at its next round. Records written by other instances are found by
 * the rounds.
 */
@Injectable()
export class SealingNudge {
  private listener: (() => void) | undefined;

  listen(listener: () => void): void {
    this.listener = listener;
  }

  nudge(): void {
    this.listener?.();
  }
}
