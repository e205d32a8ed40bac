/**
 * Where the service's log lines go: standard output (and standard error for errors), written in
 * batches. A line is appended to a buffer and the buffer is written `FLUSH_MS` after its first
 * line (or as soon as it holds `FLUSH_BYTES`), so a busy process makes one `write` for hundreds
 * of request-log lines instead of one blocking system call per line, and wakes the reader of the
 * pipe (a log collector) as rarely. Order is kept per stream.
 *
 * No line is lost when the process ends: the buffers are written, synchronously, on the
 * process's `exit` event (graceful shutdown, `process.exit`, an uncaught exception all pass
 * through it). On Linux standard output is synchronous for files, pipes and terminals, so a
 * flush returns once the bytes are written.
 */
export class LogSink {
  private readonly pending: Record<'stdout' | 'stderr', string[]> = { stdout: [], stderr: [] };
  private pendingBytes = 0;
  private scheduled = false;
  private readonly flushSoon = () => {
    this.scheduled = false;
    this.flush();
  };

  constructor(
    private readonly streams: Record<'stdout' | 'stderr', { write(text: string): unknown }>,
    private readonly flushBytes = FLUSH_BYTES,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** Queues one line (with its newline) for `stream`. */
  write(stream: 'stdout' | 'stderr', line: string): void {
    this.pending[stream].push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= this.flushBytes) {
      this.flush();
    } else if (!this.scheduled) {
      this.scheduled = true;
      setTimeout(this.flushSoon, this.flushMs).unref();
    }
  }

  /** Writes everything queued, one write per stream. */
  flush(): void {
    this.pendingBytes = 0;
    for (const stream of ['stdout', 'stderr'] as const) {
      const lines = this.pending[stream];
      if (lines.length === 0) continue;
      this.pending[stream] = [];
      this.streams[stream].write(lines.length === 1 ? lines[0]! : lines.join(''));
    }
  }
}

/** A batch is written at once past this size (characters), whatever the event loop is doing. */
const FLUSH_BYTES = 64 * 1024;
/** A line waits at most this long before it is written. */
const FLUSH_MS = 50;

let processSink: LogSink | undefined;

/** The process's one sink over its standard output and error, flushed on exit. */
export function processLogSink(): LogSink {
  if (!processSink) {
    const sink = new LogSink({ stdout: process.stdout, stderr: process.stderr });
    process.on('exit', () => sink.flush());
    processSink = sink;
  }
  return processSink;
}
