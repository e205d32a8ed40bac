export * from './client-metadata.module';
export * from './client-metadata-document.service';
export * from './client-metadata-document.entity';
export * from './client-metadata-document.repository';
export * from './client-metadata.errors';
export * from './client-id-url';
export * from './address-policy';
export type { ClientMetadata } from './document-validation';
export type { HostResolver, RequestOpener, ResolvedAddress } from './document-fetcher';
