import { Body, Controller, Get, Param, Post, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { CreateProjectDto, ProjectsService } from '@app/organizations';
import { roleSatisfies } from '@app/tenancy';
import { sendPage, sendRedirect } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext, DashboardContextGuard } from '../dashboard-context';
import { DashboardPageFilter } from '../dashboard-page.filter';
import { readForm } from '../form';
import { sectionPath } from '../views/layout';
import { projectsPage } from './projects.view';

const NOTICES: Record<string, string> = { created: 'Project created.' };

/** The Projects section: what `GET/POST /api/organizations/:orgId/projects` do, as pages. */
@ApiExcludeController()
@UseGuards(DashboardContextGuard)
@UseFilters(DashboardPageFilter)
@OrganizationRoute('orgId')
@Controller('orgs/:orgId/projects')
export class ProjectsPageController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @PageAuth({ minRole: 'member' })
  async list(@Dashboard() ctx: DashboardContext, @Query('done') done: unknown, @Res() res: Response): Promise<void> {
    const org = currentOrganization(ctx);
    const projects = await this.projects.list(org.id);
    sendPage(res, 200, projectsPage(ctx, { projects, canManage: roleSatisfies(org.role, 'admin'), notice: NOTICES[String(done)] }));
  }

  @Post()
  @PageAuth()
  async create(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const form = await readForm(CreateProjectDto, body, { name: 'Project name' }, ['name']);
    if (!form.valid) {
      const projects = await this.projects.list(orgId);
      const name = typeof body?.name === 'string' ? body.name : '';
      return sendPage(res, 400, projectsPage(ctx, { projects, canManage: true, form: { name, error: form.errors.name } }));
    }
    await this.projects.create(orgId, form.value, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'projects')}?done=created`);
  }
}
