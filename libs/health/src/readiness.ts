import { Injectable } from '@nestjs/common';

/**
 * Whether this process should get new traffic. Shutdown sets it first, so `/health/ready`
 * answers 503 while the process still serves: a load balancer stops sending before the
 * listener closes.
 */
@Injectable()
export class Readiness {
  private drainingSince: Date | undefined;

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  beginDraining(): void {
    this.drainingSince ??= new Date();
  }
}
