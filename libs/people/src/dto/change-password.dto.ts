import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength, MinLength } from 'class-validator';
import { IsNotCommonlyBreached } from '../breached-passwords';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './signup.dto';

/**
 * A password change, checked: the current password, then the new one (`SignInService.changePassword`),
 * from `POST /api/auth/password` and the dashboard's "Your account" page.
 */
export class ChangePasswordDto {
  @ApiProperty({ description: 'The password the account has now.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(PASSWORD_MAX_LENGTH)
  currentPassword: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, example: 'a new correct horse battery' })
  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH)
  @MaxLength(PASSWORD_MAX_LENGTH)
  @IsNotCommonlyBreached()
  newPassword: string;
}
