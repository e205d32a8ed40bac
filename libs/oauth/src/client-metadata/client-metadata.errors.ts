import { DomainError } from '@app/common';

/**
 * A Client ID Metadata Document could not be used: its `client_id` URL is not acceptable, the
 * fetch was refused or failed, or the document is invalid. The message names what is wrong and
 * never carries the document's content or anything from the URL beyond its host. The OAuth
 * endpoints answer it as `invalid_client` (the error page at `authorize`, where redirecting
 * would be unsafe).
 */
export class ClientMetadataError extends DomainError {
  constructor(message: string, status: 400 | 429 = 400, headers: Record<string, string> = {}) {
    super('invalid_client', message, status, headers);
    this.name = 'ClientMetadataError';
  }
}

/** Too many document fetches for one requesting address or one target host. */
export class ClientMetadataRateLimitError extends ClientMetadataError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      `Too many client metadata document fetches; try again in ${retryAfterSeconds} s`,
      429,
      { 'Retry-After': String(retryAfterSeconds) },
    );
    this.name = 'ClientMetadataRateLimitError';
  }
}
