import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { IsNotCommonlyBreached, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@app/people';

export class PasswordResetDto {
  @ApiProperty({ description: 'The secret of the reset link (`dgp_…`).' })
  @IsString()
  @MaxLength(100)
  token: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, example: 'a new correct horse battery' })
  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH)
  @MaxLength(PASSWORD_MAX_LENGTH)
  @IsNotCommonlyBreached()
  password: string;
}
