import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidationArguments,
  ValidateBy,
} from 'class-validator';
import { IsDisplaySafe } from '@app/common';
import { AGENT_PERMISSION_NAMES, AgentPermission, isAgentPermission } from '@app/capabilities';

/** Every element is a permission of the agent catalogue; the message names the position of the first bad one (never its text). */
function IsAgentPermissionList() {
  return ValidateBy({
    name: 'isAgentPermissionList',
    validator: {
      validate: (value: unknown) => Array.isArray(value) && value.every(isAgentPermission),
      defaultMessage: (args?: ValidationArguments) => {
        const index = Array.isArray(args?.value) ? args.value.findIndex((v: unknown) => !isAgentPermission(v)) : -1;
        return `permissions[${index}] is not an agent permission; allowed: ${AGENT_PERMISSION_NAMES.join(', ')}`;
      },
    },
  });
}

export class CreateServiceKeyDto {
  @ApiProperty({ example: 'nightly-sync', maxLength: 200 })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsDisplaySafe()
  name: string;

  @ApiPropertyOptional({
    enum: AGENT_PERMISSION_NAMES,
    isArray: true,
    description: 'Agent permissions its derived tokens carry. Default: every agent permission.',
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(AGENT_PERMISSION_NAMES.length * 2)
  @IsAgentPermissionList()
  permissions?: AgentPermission[];
}
