import type { ScimPrincipal } from './principal';

/**
 * What resolves a presented `scim_` token (already checked for form and checksum) to its live
 * principal, or null. The SCIM library, which owns the `scim_tokens` table, provides it; the
 * guard finds it at the first SCIM request. Without one, every SCIM request is refused.
 */
export abstract class ScimTokenResolver {
  abstract resolve(token: string): Promise<ScimPrincipal | null>;
}
