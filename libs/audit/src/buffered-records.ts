import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { canonicalSha256 } from '@app/common';
import type { NewAuditEvent } from './audit-events.repository';
import { type AgentCredential, agentActor, credentialSource, type AuditEventInput, rowOf } from './audit.service';
import { AuditSealer } from './chain/audit-sealer';

/** A buffer is written after this long, or as soon as it holds `FLUSH_RECORDS` (SPEC §10, "Loss"). */
export const FLUSH_MS = 200;
export const FLUSH_RECORDS = 500;

/** One allowed tool call that changed nothing (a read), and how it ended. */
export interface ToolRead {
  organizationId: string;
  projectId: string;
  credential: AgentCredential;
  tool: string;
  /** `succeeded`, or the refusal's code. */
  outcome: string;
  args: unknown;
}

/**
 * The records written after the answer, in batches: allowed reads (and, through
 * `RefusalAggregates`, refused requests). Each is built and checked when it happens, like every
 * record, and written with up to 499 others in one statement at most `FLUSH_MS` later, sealed as
 * they are written when this instance can take their chain (`AuditSealer.writeSealed`): the only
 * records a kill -9 may lose (docs/audit.md, "Loss").
 */
@Injectable()
export class BufferedRecords implements OnApplicationShutdown {
  private readonly logger = new Logger(BufferedRecords.name);
  private buffer: NewAuditEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly sealer: AuditSealer) {}

  /** An allowed read: `tool.called`, decision allowed, with the credential and the arguments' hash. */
  recordRead(read: ToolRead): void {
    const source = credentialSource(read.credential);
    const row = rowOf({
      organizationId: read.organizationId,
      projectId: read.projectId,
      ...agentActor(read.credential),
      action: 'tool.called',
      metadata: { tool: read.tool, outcome: read.outcome, readOnly: true, argumentsSha256: canonicalSha256(read.args ?? {}), ...source },
    });
    this.push(row);
  }

  add(input: AuditEventInput): void {
    this.push(rowOf(input));
  }

  private push(row: NewAuditEvent): void {
    this.buffer.push(row);
    if (this.buffer.length >= FLUSH_RECORDS) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what is buffered now; answers once it (and every earlier write) is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.buffer;
    this.buffer = [];
    if (rows.length > 0) {
      this.writing = this.writing.then(() =>
        this.sealer.writeSealed(rows).catch(
          (error: unknown) => this.logger.error(`buffered audit records could not be written: ${(error as Error).message}`),
        ),
      );
    }
    return this.writing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}
