/**
 * Canary tests of framework internals (docs/architecture.md, "Framework internals relied on"):
 * runs `check` and, when it fails, throws an error that names the internal, the package and the
 * file that relies on it, so an upgrade that changes it says what broke rather than only where.
 */
export async function expectInternal(internal: string, check: () => unknown): Promise<void> {
  try {
    await check();
  } catch (error) {
    throw new Error(`${internal} is gone or changed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
