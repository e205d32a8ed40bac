import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, MaxLength, MinLength } from 'class-validator';
import { Trim } from '@app/common';
import { IsNotCommonlyBreached } from '../breached-passwords';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

export class SignupDto {
  @ApiProperty({ example: 'ada@example.com', maxLength: 254, description: 'Unique, case-insensitively.' })
  @Trim()
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @ApiProperty({
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_LENGTH,
    example: 'correct horse battery staple',
    description: 'Not one of the most commonly breached passwords (a bundled list, checked offline).',
  })
  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH)
  @MaxLength(PASSWORD_MAX_LENGTH)
  @IsNotCommonlyBreached()
  password: string;

  @ApiProperty({ example: 'Ada Lovelace', maxLength: 200 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @ApiProperty({ example: 'Analytical Engines Ltd', maxLength: 200, description: 'The new organisation; you become its admin.' })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  organizationName: string;
}
