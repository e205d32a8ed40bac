import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';

export const SINK_KINDS = ['https', 'splunk_hec'] as const;
export type SinkKind = (typeof SINK_KINDS)[number];

export class CreateAuditSinkDto {
  @ApiProperty({ enum: SINK_KINDS, description: '`https`: signed NDJSON export lines; `splunk_hec`: Splunk HTTP Event Collector events' })
  @IsIn(SINK_KINDS as unknown as string[], { message: 'kind must be "https" or "splunk_hec"' })
  kind: SinkKind;

  @ApiProperty({
    example: 'https://siem.example.com/ingest/agent-gateway',
    description: 'https (private hosts only as OUTBOUND_ALLOW_HOSTS names them); for `splunk_hec` the collector\'s base URL, to which `/services/collector/event` is added',
  })
  @IsString({ message: 'url must be a URL' })
  @MaxLength(2048, { message: 'url must be at most 2048 characters' })
  url: string;

  @ApiPropertyOptional({ description: '`splunk_hec` only: the HEC token (stored encrypted, never shown again)' })
  @IsOptional()
  @IsString({ message: 'token must be a string' })
  @MaxLength(512, { message: 'token must be at most 512 characters' })
  token?: string;

  @ApiPropertyOptional({ description: 'The first `seq` to deliver (default: records sealed after the sink is made)', example: 1 })
  @IsOptional()
  @IsInt({ message: 'fromSeq must be an integer' })
  @Min(1, { message: 'fromSeq must be 1 or more' })
  fromSeq?: number;
}

export class AuditSinkDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: SINK_KINDS })
  kind: SinkKind;

  @ApiProperty()
  url: string;

  @ApiProperty({ description: 'The last `seq` the sink acknowledged (0: none yet)' })
  lastDeliveredSeq: number;

  @ApiProperty({ description: "Sealed records not yet delivered: the chain's head minus lastDeliveredSeq" })
  lag: number;

  @ApiProperty({ nullable: true, type: String, description: 'Why the last attempt failed; null after a delivery' })
  lastError: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: Date;
}

export class CreatedAuditSinkDto extends AuditSinkDto {
  @ApiPropertyOptional({ description: '`https` only, shown once: the Standard Webhooks secret (`whsec_…`) to verify each body with' })
  signingSecret?: string;
}
