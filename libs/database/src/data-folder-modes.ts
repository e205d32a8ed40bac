import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The data folder lets other local users write into it: refused (they could replace the database's files). */
export class DataFolderPermissionsError extends Error {
  constructor(
    readonly folder: string,
    readonly mode: number,
  ) {
    super(
      `The data folder ${folder} is writable by other users (mode ${octal(mode)}): they could read and rewrite the database. ` +
        `Make it private to the service's user (chmod 700 ${folder}) or point DATA_DIR at a folder that is.`,
    );
    this.name = 'DataFolderPermissionsError';
  }
}

export interface DataFolderModesOutcome {
  /** Set when DATA_DIR existed readable or searchable by other users (the service's own files inside are private anyway). */
  warning?: string;
}

/**
 * Makes the embedded database's folder private to the service's user. `dataDir` is `DATA_DIR/pg`:
 *
 * - `DATA_DIR` is created 0700 when missing. An existing one is never changed: group- or
 *   world-writable is refused (`DataFolderPermissionsError`); readable or searchable by others
 *   only warns (what the service keeps in it is private below).
 * - `DATA_DIR/pg` is created 0700 and, at every start, it and everything in it are set to 0700
 *   (folders) and 0600 (files), so a folder copied from a template, restored, or written by an
 *   older version under a looser umask is private again.
 */
export function secureDataFolderParent(dataDir: string): DataFolderModesOutcome {
  const parent = dirname(dataDir);
  if (!existsSync(parent)) {
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    chmodSync(parent, 0o700);
    return {};
  }
  const mode = statSync(parent).mode & 0o777;
  if (mode & 0o022) throw new DataFolderPermissionsError(parent, mode);
  if (mode & 0o055) {
    return {
      warning:
        `The data folder ${parent} is readable by other users (mode ${octal(mode)}); the database folder inside is kept private (0700), ` +
        `but chmod 700 ${parent} keeps the rest of it private too.`,
    };
  }
  return {};
}

/** Sets `folder` and everything under it to 0700 (folders) and 0600 (files); symbolic links are left alone. */
export function makePrivate(folder: string): void {
  if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 });
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== 0o700) chmodSync(path, 0o700);
      for (const entry of readdirSync(path)) walk(join(path, entry));
    } else if ((stat.mode & 0o777) !== 0o600) {
      chmodSync(path, 0o600);
    }
  };
  walk(folder);
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}
