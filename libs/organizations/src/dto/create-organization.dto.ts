import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsDisplaySafe, Trim } from '@app/common';

export class CreateOrganizationDto {
  @ApiProperty({ example: 'Analytical Engines Ltd', maxLength: 200 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsDisplaySafe()
  name: string;
}
