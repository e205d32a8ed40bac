import type { MembershipRole } from '@app/tenancy';
import { HandOverToSelfError, LastAdminError } from './people.errors';

/** A change to someone's membership: removal (an admin's, SCIM's deprovisioning) or a new role. */
export type MembershipChange = { kind: 'remove' } | { kind: 'role'; to: MembershipRole };

/**
 * Who may be removed or have their role changed, as far as the organisation's admins go: any
 * member, oneself included, except the organisation's only admin losing the admin role (removed,
 * or given another role), which `LastAdminError` refuses. `admins` is the number of admins,
 * counted with the organisation locked (only needed when `current` is admin). Null: allowed.
 */
export function lastAdminRefusal(current: MembershipRole, change: MembershipChange, admins: number): LastAdminError | null {
  if (current !== 'admin') return null;
  if (change.kind === 'role' && change.to === 'admin') return null;
  return admins <= 1 ? new LastAdminError() : null;
}

/**
 * To whom a leaving or demoted person's `rk_` keys pass with `handOver`: the acting person
 * (`actingUserId`; null when no person acts, an `rk_` key or the system), never the person
 * themselves. Without `handOver`, to nobody (they are revoked).
 */
export function handOverTarget(userId: string, actingUserId: string | null, handOver: boolean | undefined): string | null {
  if (!handOver) return null;
  if (!actingUserId || actingUserId === userId) throw new HandOverToSelfError();
  return actingUserId;
}
