import { Chromium, launchChromium } from './chromium';
import { startTestApp, TestApp } from './test-app';

/** The test app and a Chromium beside it; `close` ends both, the browser first. */
export interface BrowserApp {
  t: TestApp;
  browser: Chromium;
  close(): Promise<void>;
}

/**
 * Starts the test app (`env` and `options` as for `startTestApp`) and launches Chromium, for a browser spec's
 * `beforeAll`; its `afterAll` calls `close`. When Chromium does not start, the app is closed and
 * the error is thrown.
 */
export async function browserApp(env: Record<string, string> = {}, options: Parameters<typeof startTestApp>[1] = {}): Promise<BrowserApp> {
  const t = await startTestApp(env, options);
  let browser: Chromium;
  try {
    browser = await launchChromium();
  } catch (error) {
    await t.close();
    throw error;
  }
  return {
    t,
    browser,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}
