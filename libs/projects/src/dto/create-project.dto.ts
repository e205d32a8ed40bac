import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsDisplaySafe, Trim } from '@app/common';
import { PROJECT_NAME_MAX_LENGTH } from '@app/tenancy';

/** A new project's name, checked: the body of `POST …/projects` and the projects page's form. */
export class CreateProjectDto {
  @ApiProperty({ example: 'Website relaunch', maxLength: PROJECT_NAME_MAX_LENGTH })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(PROJECT_NAME_MAX_LENGTH)
  @IsDisplaySafe()
  name: string;
}

/** `PATCH …/projects/:projectId` and the projects page's rename form: the new name, with the same rules as a new project's. */
export class RenameProjectDto extends CreateProjectDto {}
