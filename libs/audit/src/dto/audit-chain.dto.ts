import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsInt, IsOptional, Max, Min } from 'class-validator';

export class ExportAuditEventsQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Records written at or after this time (ISO 8601).' })
  @IsOptional()
  @Type(() => Date)
  @IsDate({ message: 'from must be an ISO 8601 time' })
  from?: Date;

  @ApiPropertyOptional({ format: 'date-time', description: 'Records written before this time (ISO 8601).' })
  @IsOptional()
  @Type(() => Date)
  @IsDate({ message: 'to must be an ISO 8601 time' })
  to?: Date;

  @ApiPropertyOptional({ description: 'Records after this place in the chain (`unmapped.chain.seq` of the last line received).' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'afterSeq must be a whole number' })
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  afterSeq?: number;
}

export class CheckpointDto {
  @ApiProperty() seq: number;
  @ApiProperty({ description: 'The chain hash of the record at `seq`.' }) hash: string;
  @ApiProperty() keyId: string;
  @ApiProperty({ description: 'Ed25519 signature (base64url) of the RFC 8785 JSON of {chain, seq, hash, time}.' }) signature: string;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) time: number;
}

export class CheckpointKeyDto {
  @ApiProperty() keyId: string;
  @ApiProperty({ description: 'The raw Ed25519 public key, base64url (a JWK `x`).' }) publicKey: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class AuditChainVerdictDto {
  @ApiProperty() intact: boolean;
  @ApiProperty({ description: 'The last `seq` up to which the chain holds.' }) through: number;
  @ApiProperty({ type: CheckpointDto, nullable: true, description: 'The last checkpoint that holds.' }) checkpoint: CheckpointDto | null;
  @ApiPropertyOptional({ description: 'When broken: the `seq` of the first record that does not hold.' }) firstBroken?: number;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'When broken: that record id, when it is there.' }) recordId?: string | null;
  @ApiPropertyOptional({
    enum: ['missing_record', 'prev_hash_mismatch', 'hash_mismatch', 'checkpoint_mismatch', 'checkpoint_signature_invalid'],
  })
  reason?: string;
  @ApiProperty({ type: [CheckpointKeyDto], description: 'Every public key checkpoints were ever signed with.' }) keys: CheckpointKeyDto[];
}
