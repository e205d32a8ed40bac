import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { automaticSharedBuffersMb } from './embedded-postgres';

const MB = 2 ** 20;

describe('automaticSharedBuffersMb', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ag-buffers-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A data folder whose tables and indexes (`base/`) hold `sizes` MB, in files of two databases. */
  function folder(...sizes: number[]): string {
    sizes.forEach((size, i) => {
      const db = join(dir, 'base', String(1 + (i % 2)));
      mkdirSync(db, { recursive: true });
      const file = join(db, `${16384 + i}`);
      writeFileSync(file, '');
      truncateSync(file, size * MB); // sparse: the size is what counts
    });
    mkdirSync(join(dir, 'pg_wal'), { recursive: true });
    writeFileSync(join(dir, 'pg_wal', 'segment'), '');
    truncateSync(join(dir, 'pg_wal', 'segment'), 400 * MB); // not data: never counted
    return dir;
  }

  it('gives a database in memory or a new folder the smallest size', () => {
    expect(automaticSharedBuffersMb(undefined)).toBe(16);
    expect(automaticSharedBuffersMb(join(dir, 'not-yet-created'))).toBe(16);
    expect(automaticSharedBuffersMb(folder(8, 8, 7))).toBe(16);
  });

  it('gives a larger folder half of its data', () => {
    expect(automaticSharedBuffersMb(folder(100, 50))).toBe(75);
  });

  it('never gives more than PostgreSQL’s default of 128 MB', () => {
    expect(automaticSharedBuffersMb(folder(300, 200))).toBe(128);
  });
});
