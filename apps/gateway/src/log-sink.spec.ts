import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { LogSink } from './log-sink';

function recorder() {
  const writes: Record<'stdout' | 'stderr', string[]> = { stdout: [], stderr: [] };
  const streams = {
    stdout: { write: (text: string) => writes.stdout.push(text) },
    stderr: { write: (text: string) => writes.stderr.push(text) },
  };
  return { writes, streams };
}

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LogSink', () => {
  it('writes the lines of a batch period in one write per stream, in order', async () => {
    const { writes, streams } = recorder();
    const sink = new LogSink(streams, 1024, 20);
    sink.write('stdout', 'a\n');
    sink.write('stderr', 'oops\n');
    await later(5);
    sink.write('stdout', 'b\n');
    sink.write('stdout', 'c\n');
    expect(writes.stdout).toEqual([]);
    await later(40);
    expect(writes).toEqual({ stdout: ['a\nb\nc\n'], stderr: ['oops\n'] });
    sink.write('stdout', 'd\n');
    await later(40);
    expect(writes.stdout).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('writes at once when the batch reaches its size limit', () => {
    const { writes, streams } = recorder();
    const sink = new LogSink(streams, 10);
    sink.write('stdout', '12345\n');
    expect(writes.stdout).toEqual([]);
    sink.write('stdout', '67890\n');
    expect(writes.stdout).toEqual(['12345\n67890\n']);
  });

  it('loses no line when the process exits right after logging', () => {
    const script = `
      const { processLogSink } = require(${JSON.stringify(join(__dirname, 'log-sink.ts'))});
      const sink = processLogSink();
      for (let i = 0; i < 5000; i++) sink.write('stdout', 'line ' + i + '\\n');
      sink.write('stderr', 'last words\\n');
      process.exit(3);
    `;
    const run = spawnSync(process.execPath, ['-r', join(__dirname, '../../../test/helpers/register-ts.cjs'), '-e', script], {
      encoding: 'utf8',
      maxBuffer: 10 * 1024 * 1024,
    });
    expect(run.status).toBe(3);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(5000);
    expect(lines[0]).toBe('line 0');
    expect(lines[4999]).toBe('line 4999');
    expect(run.stderr).toBe('last words\n');
  });
});
