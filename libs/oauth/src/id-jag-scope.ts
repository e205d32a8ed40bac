import { AGENT_PERMISSION_NAMES, AgentPermission } from '@app/capabilities';
import type { MembershipRole } from '@app/tenancy';
import { OAuthError } from './oauth.errors';
import { permissionsFromScope, scopeString } from './oauth-params';

/** The agent permissions a person's role lets them hand to a client (every one today, as on the consent page). */
export function permissionsOfRole(role: MembershipRole): AgentPermission[] {
  return role === 'admin' || role === 'member' ? [...AGENT_PERMISSION_NAMES] : [];
}

/**
 * The permissions granted: no requested `scope` means the asserted one; otherwise the
 * intersection of requested, asserted (when the ID-JAG names a scope) and what the role allows.
 */
export function grantedPermissions(requested: string | undefined, asserted: unknown, role: MembershipRole): AgentPermission[] {
  const byRole = permissionsOfRole(role);
  const assertedSet = typeof asserted === 'string' ? (permissionsFromScope(asserted) ?? []) : undefined;
  const requestedSet = requested !== undefined ? (permissionsFromScope(requested) ?? []) : undefined;
  const granted = AGENT_PERMISSION_NAMES.filter(
    (p) => byRole.includes(p) && (assertedSet === undefined || assertedSet.includes(p)) && (requestedSet === undefined || requestedSet.includes(p)),
  );
  if (granted.length === 0) {
    const parts = [
      requestedSet !== undefined ? `the requested scope (${scopeString(requestedSet) || 'no known scope'})` : undefined,
      assertedSet !== undefined ? `the ID-JAG's scope (${scopeString(assertedSet) || 'no known scope'})` : undefined,
      `what the person's role allows (${scopeString(byRole) || 'nothing'})`,
    ].filter(Boolean);
    throw new OAuthError('invalid_scope', `No scope is left to grant: ${parts.join(', ')} have none in common`);
  }
  return granted;
}
