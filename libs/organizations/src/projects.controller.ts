import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { OrganizationRoute, RequestActor, RestAuth } from '@app/credentials';
import { CreateProjectDto, DeletedProjectDto, ProjectDto, ProjectListDto, ProjectsService, RenameProjectDto } from '@app/projects';
import { ListProjectsQueryDto } from './dto/list-projects.dto';

@ApiTags('projects')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/projects')
@OrganizationRoute('orgId')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @RestAuth({ permission: 'projects:read', minRole: 'member' })
  @ApiOperation({ summary: "The organisation's projects, oldest first, paginated (any member's session, or rk_ with projects:read)" })
  @ApiOkResponse({ type: ProjectListDto })
  @ApiErrors(400, 401, 403, 404)
  list(@Param('orgId') orgId: string, @Query() query: ListProjectsQueryDto): Promise<ProjectListDto> {
    return this.projects.page(orgId, query);
  }

  @Post()
  @RestAuth({ permission: 'projects:write' })
  @ApiOperation({ summary: 'Create a project (admin session, or rk_ with projects:write)' })
  @ApiCreatedResponse({ type: ProjectDto })
  @ApiErrors(400, 401, 403, 404)
  create(
    @Param('orgId') orgId: string,
    @Body() body: CreateProjectDto,
    @RequestActor() actor: AuditActor,
  ): Promise<ProjectDto> {
    return this.projects.create(orgId, body, actor);
  }

  @Get(':projectId')
  @RestAuth({ permission: 'projects:read', minRole: 'member' })
  @ApiOperation({ summary: 'One project (any member, or rk_ with projects:read)' })
  @ApiOkResponse({ type: ProjectDto })
  @ApiErrors(401, 403, 404)
  get(@Param('orgId') orgId: string, @Param('projectId') projectId: string): Promise<ProjectDto> {
    return this.projects.get(orgId, projectId);
  }

  @Patch(':projectId')
  @RestAuth({ permission: 'projects:write' })
  @ApiOperation({ summary: 'Rename a project; its tokens and connected clients keep working (admin session, or rk_ with projects:write)' })
  @ApiOkResponse({ type: ProjectDto })
  @ApiErrors(400, 401, 403, 404)
  rename(
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Body() body: RenameProjectDto,
    @RequestActor() actor: AuditActor,
  ): Promise<ProjectDto> {
    return this.projects.rename(orgId, projectId, body, actor);
  }

  @Delete(':projectId')
  @RestAuth({ permission: 'projects:write' })
  @ApiOperation({
    summary: 'Delete a project and revoke every agent token bound to it, in one transaction (admin session, or rk_ with projects:write)',
  })
  @ApiOkResponse({ type: DeletedProjectDto })
  @ApiErrors(401, 403, 404)
  delete(
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @RequestActor() actor: AuditActor,
  ): Promise<DeletedProjectDto> {
    return this.projects.delete(orgId, projectId, actor);
  }
}
