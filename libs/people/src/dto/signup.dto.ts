import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { IsDisplaySafe, Trim } from '@app/common';
import type { NewAccount } from '../accounts.service';
import { IsNotCommonlyBreached } from '../breached-passwords';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/**
 * A new account, checked: the body of `POST /api/auth/signup`, the sign-up page's form and the
 * command line's first admin (`AccountsService.createAccount`, `SignupService.signUp`).
 */
export class SignupDto implements NewAccount {
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
  @IsDisplaySafe()
  name: string;

  @ApiProperty({
    example: 'Analytical Engines Ltd',
    maxLength: 200,
    required: false,
    description: 'The new organisation; you become its admin. Not used (and not needed) with an invitation.',
  })
  @ValidateIf((o: SignupDto) => !o.invitation)
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsDisplaySafe()
  organizationName: string;

  @ApiProperty({
    required: false,
    description:
      'The secret of an invitation link (`dgi_…`): the account joins that organisation with the invited role instead of creating one. Works when sign-up is otherwise disabled.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  invitation?: string;
}
