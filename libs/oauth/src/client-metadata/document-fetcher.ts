import { safeFetch, type FetchedDocument, type FetcherOptions, type FetchWording } from '@app/outbound';
import { ClientMetadataError } from './client-metadata.errors';

export { systemResolver } from '@app/outbound';
export type { HostResolver, RequestOpener, ResolvedAddress } from '@app/outbound';

const CLIENT_METADATA_WORDING: FetchWording = {
  host: 'The client_id host',
  document: 'The client metadata document',
  plural: 'client metadata documents',
  userAgent: 'agent-gateway client-metadata-fetcher',
  error: (message) => new ClientMetadataError(message),
};

/**
 * Fetches a Client ID Metadata Document through the SSRF-safe fetcher of `@app/outbound`: public
 * addresses only, never the operator's `OUTBOUND_ALLOW_HOSTS` (a client_id URL is chosen by
 * whoever registers, not by the operator; SPEC §10).
 */
export function fetchClientMetadataDocument(url: URL, options: Omit<FetcherOptions, 'wording' | 'allowHosts'>): Promise<FetchedDocument> {
  return safeFetch(url, { ...options, allowHosts: undefined, wording: CLIENT_METADATA_WORDING });
}
