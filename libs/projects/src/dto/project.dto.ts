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

  @ApiProperty({ nullable: true, type: String, description: 'Pass as `cursor` for the next page; null on the last page.' })
  nextCursor: string | null;
}

/** What deleting a project would end, for the confirmation a person sees first. */
export interface ProjectDeletionImpact {
  project: ProjectDto;
  /** Live project tokens derived from service keys for this project. */
  derivedTokens: number;
  /** AI clients connected to this project (live OAuth grants). */
  connectedClients: number;
}

export class DeletedProjectDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'date-time' })
  deletedAt: string;

  @ApiProperty({ description: 'Agent tokens bound to the project that this deletion revoked.', example: 2 })
  revokedTokens: number;
}
