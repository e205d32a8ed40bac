import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, IsUUID, MaxLength, Min, ValidateNested } from 'class-validator';
import { CREDENTIAL_KINDS, type CredentialKind, type PolicyEffect, type PolicyRule } from './policy-rules';

const RULES_DOC =
  'The rules in order; the first that matches a call decides it, and no match allows. Each: `{id, description?, projects?, tools?, risk?, credentialKinds?, clients?, when?, effect, approval?}` (docs/policy.md)';

export class PolicyDto {
  @ApiProperty({ description: 'Raised by one at each save; 0 while the organisation has never saved a policy', example: 3 })
  version: number;

  @ApiProperty({ type: 'array', items: { type: 'object' }, description: RULES_DOC })
  rules: PolicyRule[];

  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'null while no policy was ever saved' })
  updatedAt: Date | null;
}

export class UpdatePolicyDto {
  @ApiProperty({ description: 'The version the change was made from (the current one, else 409)', example: 3 })
  @IsInt({ message: 'version must be an integer' })
  @Min(0, { message: 'version must be 0 or more' })
  version: number;

  @ApiProperty({ type: 'array', items: { type: 'object' }, description: RULES_DOC })
  @IsArray({ message: 'rules must be an array of rules' })
  rules: unknown[];
}

export class SampleCallDto {
  @ApiProperty({ format: 'uuid', description: 'A project of the organisation' })
  @IsUUID('all', { message: 'call.projectId must be a project id (a UUID)' })
  projectId: string;

  @ApiProperty({ example: 'delete_task' })
  @IsString({ message: 'call.tool must be a tool name' })
  @MaxLength(64, { message: 'call.tool must be at most 64 characters' })
  tool: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: "The tool's arguments (checked against its input schema, defaults filled in)" })
  @IsObject({ message: 'call.args must be an object' })
  args: Record<string, unknown>;

  @ApiProperty({ enum: CREDENTIAL_KINDS })
  @IsIn(CREDENTIAL_KINDS, { message: `call.credentialKind must be one of ${CREDENTIAL_KINDS.join(', ')}` })
  credentialKind: CredentialKind;

  @ApiPropertyOptional({ description: 'The OAuth client of the call' })
  @IsOptional()
  @IsString({ message: 'call.clientId must be a string' })
  @MaxLength(2048, { message: 'call.clientId must be at most 2048 characters' })
  clientId?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'The person the credential acts for (none for a derived token)' })
  @IsOptional()
  @IsUUID('all', { message: 'call.userId must be a user id (a UUID)' })
  userId?: string;
}

export class EvaluatePolicyDto {
  @ApiProperty({ type: SampleCallDto })
  @IsObject({ message: 'call must be an object' })
  @ValidateNested()
  @Type(() => SampleCallDto)
  call: SampleCallDto;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' }, description: 'Rules to try instead of the saved ones (not saved)' })
  @IsOptional()
  @IsArray({ message: 'rules must be an array of rules' })
  rules?: unknown[];
}

export class MatchedRuleDto {
  @ApiProperty()
  id: string;

  @ApiPropertyOptional()
  description?: string;
}

export class PolicyEvaluationDto {
  @ApiProperty({ enum: ['allow', 'deny', 'approve'] })
  effect: PolicyEffect;

  @ApiProperty({ type: MatchedRuleDto, nullable: true, description: 'The first rule that matched; null: none did, the call is allowed' })
  rule: MatchedRuleDto | null;

  @ApiPropertyOptional({ description: "The matched rule's condition failed to evaluate, which refuses the call" })
  evaluationError?: string;
}
