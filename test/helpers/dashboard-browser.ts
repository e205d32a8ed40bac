import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Puts a session JWT in the browser as the dashboard's session cookie (what signing in does). */
export async function signInBrowser(context: BrowserContext, baseUrl: string, session: string): Promise<void> {
  await context.addCookies([{ name: 'ag_session', value: session, url: baseUrl, httpOnly: true, sameSite: 'Lax' }]);
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (WCAG 2.x A and AA rules and best practices) on the page as it is, in light and
 * in dark mode, and returns the serious and critical violations. axe is injected through the
 * DevTools protocol (`page.evaluate`), which the page's Content-Security-Policy does not govern.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const found: AxeViolation[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const injected = await page.evaluate(() => typeof (globalThis as unknown as { axe?: unknown }).axe !== 'undefined');
    if (!injected) await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const scope = globalThis as unknown as {
        document: unknown;
        axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> };
      };
      const result = await scope.axe.run(scope.document, { resultTypes: ['violations'] });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
    });
    for (const v of violations) {
      if (v.impact === 'serious' || v.impact === 'critical') found.push({ ...v, id: `${v.id} (${colorScheme})` });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}
