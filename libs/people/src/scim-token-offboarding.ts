import type { EntityManager } from 'typeorm';
import type { AuditActor } from '@app/audit';

/** What became of the `scim_` tokens a person made when they left or lost the admin role. */
export interface ScimTokensOffboarded {
  outcome: 'revoked' | 'handed_over';
  tokens: { id: string; name: string }[];
}

/**
 * Ends (or hands over) the `scim_` tokens a person made in an organisation, in the caller's
 * transaction, each audited: `scim_` tokens follow the rule of `rk_` keys (SPEC §10). The SCIM
 * tokens library provides it (`ScimTokensModule`, `@app/scim-tokens`); member removal, demotion
 * and deprovisioning call it, and an application that builds `MembersService` without it does
 * not start.
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
