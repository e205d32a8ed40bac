import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { AUDIT_DECISIONS, type AuditDecision } from '../audit-events.repository';
import { KeysetPageQuery } from '@app/common';

export class ListAuditEventsQueryDto extends KeysetPageQuery('Events') {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only the events of this project.' })
  @IsOptional()
  @IsUUID('all')
  projectId?: string;

  @ApiPropertyOptional({
    description:
      'Only the events of this credential: made by it (an agent token, rk_ key or user id), made by a token derived ' +
      'from it (a service key id, an OAuth grant id or client id), or acting on it.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  credential?: string;

  @ApiPropertyOptional({
    example: 'capability.delete_task',
    description: 'Only the events of this action; a family ending in `.*` (`capability.*`: every change an agent made, `member.*`) matches each action that starts with it.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  action?: string;

  @ApiPropertyOptional({ example: 'delete_task', description: 'Only the tool calls of this tool.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  tool?: string;

  @ApiPropertyOptional({ description: 'Only the events of this OAuth client (its client id): what it did, and what tokens issued to it did.' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  client?: string;

  @ApiPropertyOptional({ enum: Object.keys(AUDIT_DECISIONS), description: 'Only the tool calls and refusals with this decision.' })
  @IsOptional()
  @IsIn(Object.keys(AUDIT_DECISIONS))
  decision?: AuditDecision;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only the events at or after this time (ISO 8601).' })
  @IsOptional()
  @Type(() => Date)
  @IsDate({ message: 'from must be an ISO 8601 time' })
  from?: Date;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only the events before this time (ISO 8601).' })
  @IsOptional()
  @Type(() => Date)
  @IsDate({ message: 'to must be an ISO 8601 time' })
  to?: Date;
}

export class AuditEventDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  organizationId: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  projectId: string | null;

  @ApiProperty({ example: 'user', description: 'user, api_key, agent_token, oauth_client, cli, …' })
  actorType: string;

  @ApiProperty({ nullable: true, type: String })
  actorId: string | null;

  @ApiProperty({ example: 'project.deleted' })
  action: string;

  @ApiProperty({ nullable: true, type: String, example: 'project' })
  targetType: string | null;

  @ApiProperty({ nullable: true, type: String })
  targetId: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Ids, names, counts; never a secret.' })
  metadata: Record<string, unknown>;

  @ApiProperty({ nullable: true, type: String })
  ip: string | null;

  @ApiProperty({ nullable: true, type: String })
  userAgent: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class AuditEventPageDto {
  @ApiProperty({ type: [AuditEventDto], description: 'Newest first.' })
  items: AuditEventDto[];

  @ApiProperty({ nullable: true, type: String, description: 'Pass as `cursor` for the next page; null on the last page.' })
  nextCursor: string | null;
}
