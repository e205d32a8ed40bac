/** A person's role in an organisation. */
export const MEMBERSHIP_ROLES = ['admin', 'member'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/** Whether `role` is enough where `needed` is required: an admin may do what a member may, not the reverse. */
export function roleSatisfies(role: MembershipRole, needed: MembershipRole): boolean {
  return needed === 'member' || role === 'admin';
}
