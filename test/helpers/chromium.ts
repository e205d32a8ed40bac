import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CI = process.env.CI === 'true' || process.env.CI === '1';

/**
 * Whether browser tests can run. Without Debian's Chromium they are skipped with a notice,
 * except under CI=true, where its absence is a failure (`.ci/run` installs it).
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (CI) return true; // let the launch fail loudly
  process.stdout.write(`\nSkipping browser tests: no Chromium at ${CHROMIUM_PATH} (Debian package chromium).\n`);
  return false;
}

/** A running Chromium: its one browser context, and `close` to end it and remove its profile. */
export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with a throwaway profile. */
export async function launchChromium(): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), 'ag-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
