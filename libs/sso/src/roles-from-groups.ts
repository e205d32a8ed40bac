import type { IdentityProviderRecord } from '@app/identity';
import type { MembershipRole } from '@app/tenancy';

/**
 * The role the ID token's groups give, under the organisation's mappings: admin when any mapped
 * group says admin, else member when any mapped group says member. `groupsRole` is that role when
 * a groups claim is configured and the token carries it (a token without it changes no role; a
 * token with it but no mapped group gives the default role); `role` is what a new membership gets.
 */
export function desiredRole(
  provider: Pick<IdentityProviderRecord, 'groupsClaim' | 'roleMappings' | 'defaultRole'>,
  claims: Record<string, unknown>,
): { role: MembershipRole; groupsRole: MembershipRole | null } {
  const fallback: MembershipRole = provider.defaultRole ?? 'member'; // never admin (the settings refuse it)
  if (!provider.groupsClaim) return { role: fallback, groupsRole: null };
  const value = claims[provider.groupsClaim];
  const groups = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string') : null;
  if (!groups) return { role: fallback, groupsRole: null };
  const mapped = (provider.roleMappings ?? []).filter((m) => groups.includes(m.group)).map((m) => m.role);
  const role: MembershipRole = mapped.includes('admin') ? 'admin' : mapped.includes('member') ? 'member' : fallback;
  return { role, groupsRole: role };
}
