import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateLimitModule } from '@app/rate-limit';
import { ClientMetadataDocument } from './client-metadata-document.entity';
import { ClientMetadataDocumentRepository } from './client-metadata-document.repository';
import { ClientMetadataDocumentService } from './client-metadata-document.service';

/** Client ID Metadata Documents: the SSRF-safe fetcher, validation and the shared cache. */
@Module({
  imports: [TypeOrmModule.forFeature([ClientMetadataDocument]), RateLimitModule],
  providers: [ClientMetadataDocumentRepository, ClientMetadataDocumentService],
  exports: [ClientMetadataDocumentService],
})
export class ClientMetadataModule {}
