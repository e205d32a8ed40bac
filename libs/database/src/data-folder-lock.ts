import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, realpathSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** Who holds a data folder: enough to tell a live holder from a dead one whose pid was reused. */
export interface LockHolder {
  pid: number;
  /** Start time of the process in clock ticks since boot (`/proc/<pid>/stat`, field 22); '' where unknown. */
  startTime: string;
  /** The kernel's boot id: a lock written before a reboot is stale whatever its pid. */
  bootId: string;
  host: string;
  command: string;
  /** ISO 8601 time the lock was taken. */
  since: string;
}

/** Another live process holds the data folder. The message names it and what to do. */
export class DataFolderLockedError extends Error {
  constructor(
    readonly folder: string,
    readonly holder: LockHolder,
    readonly lockFile: string,
  ) {
    const where = holder.host === hostname() ? '' : ` on host ${holder.host}`;
    super(
      `The data folder ${folder} is in use by process ${holder.pid}${where} (${holder.command}) since ${holder.since}. ` +
        'Only one process may open the embedded database: stop that process first (the command line needs the ' +
        'service stopped), use another DATA_DIR, or set DATABASE_URL to a PostgreSQL that any number of processes share.' +
        (where ? ` If that process is gone, delete ${lockFile}.` : ''),
    );
    this.name = 'DataFolderLockedError';
  }
}

/** A takeover mutex older than this was left by a process killed mid-takeover (which takes milliseconds). */
const STALE_TAKEOVER_MS = 10_000;

/**
 * One process per embedded data folder. The lock is a file beside the folder's real path
 * (`<folder>.lock`) created atomically (written aside, then hard-linked into place, so it is never
 * seen half-written) and naming its holder. A second process finds it and refuses at once while
 * the holder lives; "lives" means the pid exists on this host *and* has the recorded start time
 * and boot id, so a pid reused after a crash or a container restart (pid 1 again) is not taken for
 * the holder. A lock left by a killed process is replaced under a short takeover mutex, so two
 * processes finding the same stale lock cannot both take it. A holder on another host cannot be
 * checked from here: that lock is honoured until removed by hand.
 */
export class DataFolderLock {
  private constructor(
    readonly file: string,
    private readonly content: string,
  ) {}

  static acquire(folder: string): DataFolderLock {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const real = realpathSync(folder);
    const file = join(dirname(real), `${basename(real)}.lock`);
    const content = JSON.stringify(describeProcess(process.pid));
    for (let attempt = 0; attempt < 5; attempt++) {
      if (createExclusive(file, content)) return new DataFolderLock(file, content);
      const existing = readOrEmpty(file);
      const holder = parseHolder(existing);
      if (holder && isAlive(holder)) throw new DataFolderLockedError(real, holder, file);
      removeIfUnchanged(file, existing);
    }
    const holder = parseHolder(readOrEmpty(file));
    throw new DataFolderLockedError(real, holder ?? describeProcess(-1), file);
  }

  /** Removes the lock if it is still this process's. Synchronous, so it can run at exit. */
  release(): void {
    if (readOrEmpty(this.file) === this.content) unlinkQuietly(this.file);
  }
}

/** What `/proc` says about `pid`, for the lock file and for the refusal message. */
export function describeProcess(pid: number): LockHolder {
  let command = pid === process.pid ? process.argv.join(' ') : '';
  if (pid > 0) {
    const cmdline = readOrEmpty(`/proc/${pid}/cmdline`);
    if (cmdline) command = cmdline.split('\0').filter(Boolean).join(' ');
  }
  return {
    pid,
    startTime: pid > 0 ? processStartTime(pid) : '',
    bootId: bootId(),
    host: hostname(),
    command: command.slice(0, 300) || 'unknown command',
    since: new Date().toISOString(),
  };
}

function processStartTime(pid: number): string {
  const stat = readOrEmpty(`/proc/${pid}/stat`);
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return rest[19] ?? '';
}

function bootId(): string {
  return readOrEmpty('/proc/sys/kernel/random/boot_id').trim();
}

function isAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.bootId && bootId() && holder.bootId !== bootId()) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const now = processStartTime(holder.pid);
  return !holder.startTime || !now || now === holder.startTime;
}

function createExclusive(file: string, content: string): boolean {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(aside, content, { mode: 0o600 });
  try {
    linkSync(aside, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkQuietly(aside);
  }
}

/** Deletes a stale lock, unless another process replaced it since it was read. */
function removeIfUnchanged(file: string, seen: string): void {
  const mutex = `${file}.takeover`;
  const deadline = Date.now() + 2 * STALE_TAKEOVER_MS;
  for (;;) {
    try {
      mkdirSync(mutex);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() - mtimeOr(mutex, Date.now()) > STALE_TAKEOVER_MS) rmdirQuietly(mutex);
      if (Date.now() > deadline) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    if (readOrEmpty(file) === seen) unlinkQuietly(file);
  } finally {
    rmdirQuietly(mutex);
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid !== 'number') return undefined;
    return {
      pid: value.pid,
      startTime: String(value.startTime ?? ''),
      bootId: String(value.bootId ?? ''),
      host: String(value.host ?? hostname()),
      command: String(value.command ?? 'unknown command'),
      since: String(value.since ?? 'an unknown time'),
    };
  } catch {
    return undefined;
  }
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function mtimeOr(path: string, fallback: number): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return fallback;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // already gone
  }
}
