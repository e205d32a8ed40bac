import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * A pre-initialised data folder for the embedded database: what PostgreSQL's initdb makes, made
 * once by `npm run build` (`scripts/embedded-template.js`) beside the compiled code, and copied
 * into a new `DATA_DIR/pg` instead of running initdb at the first start (about 20 s and 850 MB in
 * a child process). Stamped with the PGlite version that made it: a template of another version
 * is not used (the build makes it again).
 */
export const EMBEDDED_TEMPLATE_DIR = join(__dirname, 'embedded-template');

/** The installed PGlite's version: a data folder is only opened by the version that wrote it. */
export function pgliteVersion(): string {
  const entry = require.resolve('@electric-sql/pglite');
  let dir = dirname(entry);
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The stamp beside the template. Not `<name>.json`: beside the sources, a folder `embedded-template`
 * and a `embedded-template.json` would be found by `require('./embedded-template')` before the
 * `.ts` file a require hook compiles. */
export function templateStamp(templateDir: string): string {
  return `${templateDir}.stamp`;
}

/** Whether `templateDir` holds a complete template made by the installed PGlite. */
export function isUsableTemplate(templateDir: string): boolean {
  if (!existsSync(join(templateDir, 'PG_VERSION')) || !existsSync(templateStamp(templateDir))) return false;
  try {
    return (JSON.parse(readFileSync(templateStamp(templateDir), 'utf8')) as { pglite?: string }).pglite === pgliteVersion();
  } catch {
    return false;
  }
}

/**
 * Makes the template at `templateDir` (initdb in this process, then a clean close), unless a
 * usable one is there already. Written beside and renamed into place, so a half-made template is
 * never used. Returns whether it made one.
 */
export async function createEmbeddedTemplate(templateDir: string): Promise<boolean> {
  if (isUsableTemplate(templateDir)) return false;
  const scratch = mkdtempSync(`${templateDir}.making-`);
  try {
    const db = await PGlite.create({ dataDir: scratch });
    await db.exec('CHECKPOINT');
    await db.close();
    rmSync(templateDir, { recursive: true, force: true });
    renameSync(scratch, templateDir);
    writeFileSync(templateStamp(templateDir), `${JSON.stringify({ pglite: pgliteVersion(), made: new Date().toISOString() })}\n`);
    return true;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Copies a usable template into the new data folder `dataDir`; false when there is none.
 * `PG_VERSION`, which marks a folder as initialised, is copied last: a copy cut short is copied
 * again at the next start.
 */
export function copyTemplate(templateDir: string, dataDir: string): boolean {
  if (!isUsableTemplate(templateDir)) return false;
  const marker = join(templateDir, 'PG_VERSION');
  cpSync(templateDir, dataDir, { recursive: true, filter: (source) => source !== marker });
  cpSync(marker, join(dataDir, 'PG_VERSION'));
  return true;
}
