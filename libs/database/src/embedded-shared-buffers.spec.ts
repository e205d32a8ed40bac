import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { automaticSharedBuffersMb } from './embedded-postgres';

const MB = 2 ** 20;

describe('automaticSharedBuffersMb', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ag-buffers-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A data folder whose databases (`base/<oid>`) hold `sizes` MB each, in two files each. */
  function folder(...sizes: number[]): string {
    sizes.forEach((size, i) => {
      const db = join(dir, 'base', String(1 + i));
      mkdirSync(db, { recursive: true });
      writeFileSync(join(db, '1259'), '');
      truncateSync(join(db, '1259'), (size * MB) / 2);
      const file = join(db, `${16384 + i}`);
      writeFileSync(file, '');
      truncateSync(file, (size * MB) / 2); // sparse: the size is what counts
    });
    mkdirSync(join(dir, 'pg_wal'), { recursive: true });
    writeFileSync(join(dir, 'pg_wal', 'segment'), '');
    truncateSync(join(dir, 'pg_wal', 'segment'), 400 * MB); // not data: never counted
    return dir;
  }

  it('gives a database in memory or a new folder the smallest size', () => {
    expect(automaticSharedBuffersMb(undefined)).toBe(16);
    expect(automaticSharedBuffersMb(join(dir, 'not-yet-created'))).toBe(16);
    // A new folder: two templates and the service's database, about 7 MB each.
    expect(automaticSharedBuffersMb(folder(8, 8, 7))).toBe(16);
  });

  it('gives a larger folder the size of its largest database, not of the templates beside it', () => {
    expect(automaticSharedBuffersMb(folder(8, 8, 60))).toBe(60);
  });

  it('never gives more than PostgreSQL’s default of 128 MB', () => {
    expect(automaticSharedBuffersMb(folder(8, 8, 300))).toBe(128);
  });
});
