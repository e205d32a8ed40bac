import type { ScimPrincipal } from './principal';

/**
 * What resolves a presented `scim_` token (already checked for form and checksum) to its live
 * principal, or null. The SCIM tokens library (`@app/scim-tokens`, `ScimTokensModule`), which owns
 * the `scim_tokens` table, provides it; the guard finds it at start-up, and an application that
 * serves HTTP without one does not start (`requireScimTokenResolver`).
 */
export abstract class ScimTokenResolver {
  abstract resolve(token: string): Promise<ScimPrincipal | null>;
}
