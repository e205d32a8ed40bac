import { DomainError, type ErrorKind } from '@app/common';

/**
 * A Client ID Metadata Document could not be used: its `client_id` URL is not acceptable, the
 * fetch was refused or failed, or the document is invalid. The message names what is wrong and
 * never carries the document's content or anything from the URL beyond its host. The OAuth
 * endpoints answer it as `invalid_client` (the error page at `authorize`, where redirecting
 * would be unsafe).
 */
export class ClientMetadataError extends DomainError {
  constructor(message: string, kind: ErrorKind = 'invalid_input') {
    super('invalid_client', message, kind);
    this.name = 'ClientMetadataError';
  }
}

/** Too many document fetches for one requesting address or one target host. */
export class ClientMetadataRateLimitError extends ClientMetadataError {
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many client metadata document fetches from this address or from this document's host; try again in ${retryAfterSeconds} s`, 'rate_limited');
    this.name = 'ClientMetadataRateLimitError';
  }
}
