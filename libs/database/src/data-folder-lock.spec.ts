import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataFolderLock, DataFolderLockedError, describeProcess } from './data-folder-lock';

describe('DataFolderLock', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'ag-lock-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const folder = () => join(root, 'pg');
  const lockFile = () => join(root, 'pg.lock');
  const writeHolder = (overrides: Record<string, unknown>) =>
    writeFileSync(lockFile(), JSON.stringify({ ...describeProcess(process.pid), ...overrides }));

  it('refuses a second holder while the first lives, naming it; free again once released', () => {
    const lock = DataFolderLock.acquire(folder());
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid });
    let refused: unknown;
    try {
      DataFolderLock.acquire(folder());
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DataFolderLockedError);
    expect((refused as Error).message).toContain(`in use by process ${process.pid}`);
    expect((refused as Error).message).toMatch(/stop that process first/);
    lock.release();
    expect(existsSync(lockFile())).toBe(false);
    DataFolderLock.acquire(folder()).release();
  });

  it('locks the real path: the same folder through a symbolic link is refused', () => {
    const lock = DataFolderLock.acquire(folder());
    symlinkSync(root, join(root, 'alias'));
    expect(() => DataFolderLock.acquire(join(root, 'alias', 'pg'))).toThrow(DataFolderLockedError);
    lock.release();
  });

  it('takes over a lock whose process is gone', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeHolder({ pid: dead, startTime: '1' });
    const lock = DataFolderLock.acquire(folder());
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it('takes over a lock whose pid now belongs to another process (pid reuse, a restarted container)', () => {
    writeHolder({ startTime: '1' });
    const lock = DataFolderLock.acquire(folder());
    expect(JSON.parse(readFileSync(lockFile(), 'utf8')).startTime).not.toBe('1');
    lock.release();
  });

  it('takes over a lock written before the last reboot, and an unreadable one', () => {
    writeHolder({ bootId: 'another-boot' });
    DataFolderLock.acquire(folder()).release();
    writeFileSync(lockFile(), '');
    DataFolderLock.acquire(folder()).release();
  });

  it('honours a lock held on another host and says how to clear it', () => {
    writeHolder({ host: 'elsewhere', pid: 4242 });
    expect(() => DataFolderLock.acquire(folder())).toThrow(/process 4242 on host elsewhere .*delete .*pg\.lock/);
  });
});
