import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '@app/common';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { CreateProjectDto, ProjectsService, RenameProjectDto } from '@app/projects';
import { roleSatisfies } from '@app/tenancy';
import { sendPage, sendRedirect, singleParam } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { sectionPath } from '../views/layout';
import { deleteProjectPage, renameProjectPage } from './project-actions.view';
import { projectsPage } from './projects.view';

const NOTICES: Record<string, string> = { created: 'Project created.', renamed: 'Project renamed.', deleted: 'Project deleted.', joined: 'You joined the organisation.' };
const PAGE_SIZE = 25;
const LABELS = { name: 'Project name' };

/** The Projects section: what `…/api/organizations/:orgId/projects` does, as pages. */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/projects')
export class ProjectsPageController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @PageAuth({ minRole: 'member' })
  async list(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const org = currentOrganization(ctx);
    const cursor = singleParam(query, 'cursor');
    if (cursor.duplicate) throw new DomainError('invalid_cursor', 'This page link is not one the list gave', 'invalid_input');
    const page = await this.projects.page(org.id, { limit: PAGE_SIZE, cursor: cursor.value });
    sendPage(
      res,
      200,
      projectsPage(ctx, {
        projects: page.items,
        nextCursor: page.nextCursor,
        onFirstPage: cursor.value === undefined,
        canManage: roleSatisfies(org.role, 'admin'),
        notice: noticeOf(singleParam(query, 'done').value),
      }),
    );
  }

  @Post()
  @PageAuth()
  async create(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const form = await readForm(CreateProjectDto, body, LABELS, ['name']);
    if (!form.valid) {
      const page = await this.projects.page(orgId, { limit: PAGE_SIZE });
      const name = typeof body?.name === 'string' ? body.name : '';
      return sendPage(
        res,
        400,
        projectsPage(ctx, { projects: page.items, nextCursor: page.nextCursor, onFirstPage: true, canManage: true, form: { name, error: form.errors.name } }),
      );
    }
    await this.projects.create(orgId, form.value, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'projects')}?done=created`);
  }

  @Get(':projectId/rename')
  @PageAuth()
  async renameForm(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('projectId') projectId: string, @Res() res: Response): Promise<void> {
    sendPage(res, 200, renameProjectPage(ctx, await this.projects.get(orgId, projectId)));
  }

  @Post(':projectId/rename')
  @PageAuth()
  async rename(
    @Dashboard() ctx: DashboardContext,
    @Param('orgId') orgId: string,
    @Param('projectId') projectId: string,
    @Body() body: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const project = await this.projects.get(orgId, projectId);
    const form = await readForm(RenameProjectDto, body, LABELS, ['name']);
    if (!form.valid) {
      const name = typeof body?.name === 'string' ? body.name : '';
      return sendPage(res, 400, renameProjectPage(ctx, project, { name, error: form.errors.name }));
    }
    await this.projects.rename(orgId, projectId, form.value, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'projects')}?done=renamed`);
  }

  @Get(':projectId/delete')
  @PageAuth()
  async confirmDelete(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('projectId') projectId: string, @Res() res: Response): Promise<void> {
    sendPage(res, 200, deleteProjectPage(ctx, await this.projects.deletionImpact(orgId, projectId)));
  }

  @Post(':projectId/delete')
  @PageAuth()
  async delete(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('projectId') projectId: string, @Res() res: Response): Promise<void> {
    await this.projects.delete(orgId, projectId, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'projects')}?done=deleted`);
  }
}

function noticeOf(done: string | undefined): string | undefined {
  return done !== undefined && Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined;
}
