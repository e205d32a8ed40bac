import { AGENT_PERMISSION_NAMES, AgentPermission } from '@app/capabilities';
import { AgentToken, ServiceKey, secretHint, TOKEN_PREFIXES } from '@app/credential-store';
import type { ProjectTokenDto, ServiceKeyCreatorDto, ServiceKeyDto } from './dto/service-key.dto';

/** The catalogue's order, without duplicates. */
export function normalisePermissions(permissions: readonly AgentPermission[]): AgentPermission[] {
  return AGENT_PERMISSION_NAMES.filter((p) => permissions.includes(p));
}

/**
 * A derived token's `expires_at` is set only by a rotation: it is rotating out until then, revoked
 * after. Its `valid_until` is the expiry chosen when it was derived: expired after.
 */
export function tokenView(token: AgentToken): ProjectTokenDto {
  const now = Date.now();
  const ended = token.expiresAt !== null && token.expiresAt.getTime() <= now;
  const revokedAt = token.revokedAt ?? (ended ? token.expiresAt : null);
  // Past its chosen expiry before anything else ended it (a later derive marks it revoked at that time).
  const expired = token.validUntil !== null && token.validUntil.getTime() <= now && (revokedAt === null || revokedAt.getTime() >= token.validUntil.getTime());
  return {
    id: token.id,
    serviceKeyId: token.serviceKeyId!,
    projectId: token.projectId,
    permissions: token.permissions,
    secretHint: secretHint(TOKEN_PREFIXES.agentAccess, token.secretLast4),
    status: expired ? 'expired' : revokedAt ? 'revoked' : token.expiresAt ? 'rotating_out' : 'active',
    expiresAt: token.validUntil,
    createdAt: token.createdAt,
    rotatingOutUntil: revokedAt ? null : token.expiresAt,
    revokedAt,
    lastUsedAt: token.lastUsedAt,
  };
}

export function keyView(key: ServiceKey, tokens: AgentToken[], createdBy: ServiceKeyCreatorDto | null): ServiceKeyDto {
  return {
    id: key.id,
    name: key.name,
    permissions: key.permissions,
    status: key.revokedAt ? 'revoked' : 'active',
    createdAt: key.createdAt,
    revokedAt: key.revokedAt,
    createdBy,
    tokens: tokens.map(tokenView),
  };
}
