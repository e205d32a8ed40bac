import { ApiProperty } from '@nestjs/swagger';

export class ProjectDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Website relaunch' })
  name: string;

  @ApiProperty({ format: 'uuid' })
  organizationId: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class ProjectListDto {
  @ApiProperty({ type: [ProjectDto], description: 'Oldest first; deleted projects are not listed.' })
  items: ProjectDto[];
}

export class DeletedProjectDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'date-time' })
  deletedAt: string;

  @ApiProperty({ description: 'Agent tokens bound to the project that this deletion revoked.', example: 2 })
  revokedTokens: number;
}
