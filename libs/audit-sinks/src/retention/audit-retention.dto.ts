import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';

/** The longest period an organisation may set: a hundred years. */
export const MAX_RETENTION_DAYS = 36_500;

export class UpdateAuditRetentionDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 730,
    description: "The organisation's own period in days, at least AUDIT_RETENTION_DAYS (a longer one only); null: the deployment's",
  })
  @ValidateIf((o: UpdateAuditRetentionDto) => o.retentionDays !== null)
  @IsInt({ message: 'retentionDays must be a whole number of days, or null' })
  @Min(1, { message: 'retentionDays must be 1 or more' })
  @Max(MAX_RETENTION_DAYS, { message: `retentionDays must be at most ${MAX_RETENTION_DAYS}` })
  retentionDays: number | null;
}

export class AuditRetentionDto {
  @ApiProperty({ type: Number, nullable: true, description: "The organisation's own period in days (null: the deployment's)" })
  retentionDays: number | null;

  @ApiProperty({ description: 'AUDIT_RETENTION_DAYS: the deployment\'s period, the shortest an organisation may have' })
  defaultRetentionDays: number;

  @ApiProperty({ description: 'The period that applies: the longer of the two' })
  effectiveRetentionDays: number;

  @ApiProperty({ description: "Records through this seq were removed; its checkpoint is the chain's anchor (0: none removed)" })
  expiredThroughSeq: number;
}
