import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../entities/approval.entity';

export class ApprovalDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: APPROVAL_STATUSES }) status: ApprovalStatus;
  @ApiProperty({ description: 'The page where a person decides it' }) url: string;
  @ApiProperty({ format: 'uuid' }) projectId: string;
  @ApiProperty({ example: 'delete_task' }) tool: string;
  @ApiProperty({ nullable: true, type: String, enum: ['read', 'write', 'destructive'] }) risk: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The validated arguments of the held call' }) arguments: Record<string, unknown>;
  @ApiProperty({ description: 'SHA-256 (hex) of the RFC 8785 canonical arguments' }) argumentsSha256: string;
  @ApiProperty({ nullable: true, type: String }) clientId: string | null;
  @ApiProperty({ enum: ['oauth', 'id_jag', 'derived'] }) credentialKind: string;
  @ApiProperty({ format: 'uuid', description: 'The grant (OAuth, ID-JAG) or the derived token' }) credentialId: string;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'The person whose agent made the call (null for a derived token)' }) userId: string | null;
  @ApiProperty() ruleId: string;
  @ApiProperty({ nullable: true, type: String }) ruleDescription: string | null;
  @ApiProperty({ description: 'Distinct approvals so far and how many the rule needs', example: { count: 1, needed: 2 } }) approvals: { count: number; needed: number };
  @ApiProperty({ type: [String], description: 'The people who approved' }) approvedBy: string[];
  @ApiProperty({ nullable: true, type: String }) deniedBy: string | null;
  @ApiProperty({ nullable: true, type: String }) decisionReason: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Why it was voided (credential_ended, member_removed, project_deleted, rule_changed)' }) voidedReason: string | null;
  @ApiProperty({ description: 'Whether the caller may decide it now' }) canDecide: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt: Date;
  @ApiProperty({ type: String, format: 'date-time' }) expiresAt: Date;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) decidedAt: Date | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) consumedAt: Date | null;
}

export class ApprovalListDto {
  @ApiProperty({ type: [ApprovalDto] }) approvals: ApprovalDto[];
}

export class ApprovalListQueryDto {
  @ApiPropertyOptional({ enum: APPROVAL_STATUSES })
  @IsOptional()
  @IsIn(APPROVAL_STATUSES, { message: `status must be one of ${APPROVAL_STATUSES.join(', ')}` })
  status?: ApprovalStatus;
}

export class ApprovalDecisionDto {
  @ApiProperty({ enum: ['approve', 'deny'] })
  @IsIn(['approve', 'deny'], { message: 'decision must be "approve" or "deny"' })
  decision: 'approve' | 'deny';

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsString({ message: 'reason must be a string' })
  @MaxLength(500, { message: 'reason must be at most 500 characters' })
  reason?: string;
}
