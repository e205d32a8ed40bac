import { metadataDocumentHost } from '../redirect-uri';
import type { ClientPolicyMode } from './client-policy.entity';

/** An organisation's client policy as the services use it. */
export interface ClientPolicy {
  mode: ClientPolicyMode;
  /** Hosts (with a port when the URL names one) of admitted metadata-document clients' `client_id` URLs. */
  allowedHosts: string[];
  /** Whether registered (RFC 7591) clients, as one class, are admitted. */
  allowRegisteredClients: boolean;
}

/** What an organisation without a stored policy admits: every client. */
export const ANY_CLIENT: ClientPolicy = { mode: 'any', allowedHosts: [], allowRegisteredClients: true };

/** Whether `policy` lets the client named `clientId` (a UUID, or a metadata document's URL) connect. */
export function admitsClient(policy: ClientPolicy, clientId: string): boolean {
  if (policy.mode === 'any') return true;
  const host = metadataDocumentHost(clientId);
  return host === undefined ? policy.allowRegisteredClients : policy.allowedHosts.includes(host);
}

export const MAX_ALLOWED_HOSTS = 100;

/**
 * The canonical form of a host an administrator lists, as a URL parser prints a `client_id` URL's
 * host: lower case (an international name in its `xn--` form), a port only when it is not 443.
 * No scheme, path, user info or wildcard. Null when it is not a host.
 */
export function canonicalHost(raw: string): string | null {
  const value = raw.trim().toLowerCase();
  if (!value || value.length > 260 || /[\s/\\@?#*]/.test(value)) return null;
  try {
    const url = new URL(`https://${value}`);
    if (!url.hostname || url.pathname !== '/' || url.username || url.password) return null;
    return url.host;
  } catch {
    return null;
  }
}
