import type { IdJagClient } from './entities';

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

