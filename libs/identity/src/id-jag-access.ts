import type { EntityManager } from 'typeorm';
import type { IdJagClient } from './entities';
import { IdentityProviderError } from './identity.errors';

/** One (issuer, client, project) an organisation's ID-JAG settings let a client trade for. */
export interface IdJagAccess {
  issuer: string;
  clientId: string;
  projectId: string;
}

/**
 * What an organisation's settings let ID-JAG tokens act on (SPEC §10): with `acceptIdJag` on, each
 * `idJagClients` entry with a project, under the settings' issuer; nothing when `acceptIdJag` is off
 * or the identity provider is gone (`null`). Every ID-JAG grant outside it is ended with its
 * tokens in the transaction that saves the settings (`CredentialRevoker.revokeIdJagAccess`).
 */
export function idJagAccessKept(settings: { issuer: string; acceptIdJag: boolean; idJagClients: readonly IdJagClient[] } | null): IdJagAccess[] {
  if (!settings?.acceptIdJag) return [];
  return settings.idJagClients.flatMap((c) => (c.projectId ? [{ issuer: settings.issuer, clientId: c.clientId, projectId: c.projectId }] : []));
}

/**
 * Which clients are an organisation's own (SPEC §10, "Organisation clients"): the `oauth` library,
 * which owns the clients' table, provides it (its store module), so that the settings name only
 * the organisation's clients.
 */
export abstract class OrganizationClientOwnership {
  abstract ownedBy(organizationId: string, clientIds: readonly string[], em?: EntityManager): Promise<Set<string>>;
}

/**
 * Refuses `idJagClients` naming a client that is not the organisation's own (unknown, another
 * organisation's, a registered or metadata-document client): 400 `invalid_id_jag_clients`.
 */
export async function checkIdJagClientsOwned(
  ownership: OrganizationClientOwnership,
  organizationId: string,
  clients: readonly IdJagClient[],
  em: EntityManager,
): Promise<void> {
  if (clients.length === 0) return;
  const owned = await ownership.ownedBy(
    organizationId,
    clients.map((c) => c.clientId),
    em,
  );
  const index = clients.findIndex((c) => !owned.has(c.clientId));
  if (index >= 0) {
    throw new IdentityProviderError(
      'invalid_id_jag_clients',
      `idJagClients[${index}].clientId is not a client of this organisation: an admin makes an organisation client (Connected clients, or POST /api/organizations/:orgId/oauth-clients) and names its client_id`,
    );
  }
}
