import type { EntityManager } from 'typeorm';
import type { AuditActor } from '@app/audit';
import type { ScimPrincipal } from './principal';

/**
 * What resolves a presented `scim_` token (already checked for form and checksum) to its live
 * principal, or null. The SCIM library, which owns the `scim_tokens` table, provides it; the
 * guard finds it at the first SCIM request. Without one, every SCIM request is refused.
 */
export abstract class ScimTokenResolver {
  abstract resolve(token: string): Promise<ScimPrincipal | null>;
}

/** What became of the `scim_` tokens a person made when they left or lost the admin role. */
export interface ScimTokensOffboarded {
  outcome: 'revoked' | 'handed_over';
  tokens: { id: string; name: string }[];
}

/**
 * Ends (or hands over) the `scim_` tokens a person made in an organisation, in the caller's
 * transaction, each audited: `scim_` tokens follow the rule of `rk_` keys (SPEC §10). The SCIM
 * library provides it (`ScimTokensModule`); member removal, demotion and deprovisioning call it,
 * and an application that builds `MembersService` without it does not start.
 */
export abstract class ScimTokenOffboarding {
  abstract endOrHandOverCreatedBy(
    em: EntityManager,
    organizationId: string,
    userId: string,
    options: { handOverTo: string | null; reason: 'member_removed' | 'member_demoted' },
    actor: AuditActor,
  ): Promise<ScimTokensOffboarded>;
}
