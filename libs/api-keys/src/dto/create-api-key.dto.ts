import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  registerDecorator,
  ValidationArguments,
  ValidationOptions,
} from 'class-validator';
import { IsDisplaySafe, IsFutureInstant, Trim } from '@app/common';
import { API_KEY_PERMISSION_NAMES, ApiKeyPermission, isApiKeyPermission } from '@app/credential-store';

/** Every entry must be in the API-key permission catalogue; the message names the positions of those that are not (never their text). */
function IsApiKeyPermissionList(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isApiKeyPermissionList',
      target: object.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => Array.isArray(value) && value.every(isApiKeyPermission),
        defaultMessage: (args: ValidationArguments) => {
          const bad = Array.isArray(args.value) ? args.value.flatMap((v, i) => (isApiKeyPermission(v) ? [] : [`permissions[${i}]`])) : [];
          return `${bad.join(', ')} ${bad.length === 1 ? 'is not an API-key permission' : 'are not API-key permissions'}; allowed: ${API_KEY_PERMISSION_NAMES.join(', ')}`;
        },
      },
    });
}

export class CreateApiKeyDto {
  @ApiProperty({ example: 'CI deploy bot', maxLength: 100 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @IsDisplaySafe()
  name: string;

  @ApiProperty({
    enum: API_KEY_PERMISSION_NAMES,
    isArray: true,
    example: ['projects:read', 'projects:write'],
    description: 'From the API-key catalogue (GET /api/permissions).',
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(API_KEY_PERMISSION_NAMES.length * 2)
  @IsApiKeyPermissionList()
  permissions: ApiKeyPermission[];

  @ApiPropertyOptional({ format: 'date-time', nullable: true, description: 'When the key stops working; omitted → never.' })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  @IsFutureInstant()
  expiresAt?: string | null;
}
