import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AuditChainService } from '@app/audit';
import { type AuditSinkDto, AuditSinksService, CreateAuditSinkDto } from '@app/audit-sinks';
import { DomainError, HTTP_STATUS_OF_KIND, NotFoundError } from '@app/common';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { sendPage, sendRedirect, singleParam } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { PageRecentSignIn, RecentSignInRefusal } from '../recent-sign-in-form';
import { noticeOf } from '../views/when';
import { auditSinksPage, createdAuditSinkPage, deleteAuditSinkPage, newAuditSinkPage, type NewSinkForm, sinksPath } from './audit-sinks.view';

const NOTICES: Record<string, string> = { deleted: 'Audit sink deleted. Nothing more is delivered to it.' };

/**
 * The audit sinks page (admins): what `GET/POST /api/organizations/:orgId/audit-sinks` and
 * `DELETE …/audit-sinks/:id` do, as pages — each sink's "delivered through N, behind by M" and
 * last error; adding and deleting need a sign-in of the last 15 minutes, as over REST: the
 * form's password field re-authenticates first when it is filled in.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/audit/sinks')
export class AuditSinksPageController {
  constructor(
    private readonly sinks: AuditSinksService,
    private readonly chains: AuditChainService,
    private readonly recentSignIn: PageRecentSignIn,
  ) {}

  @Get()
  @PageAuth()
  async list(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const [sinks, head] = await Promise.all([this.sinks.list(orgId), this.chains.headSeq(orgId)]);
    sendPage(res, 200, auditSinksPage(ctx, { sinks, head, notice: noticeOf(NOTICES, query) }));
  }

  @Get('new')
  @PageAuth()
  newForm(@Dashboard() ctx: DashboardContext, @Res() res: Response): void {
    sendPage(res, 200, newAuditSinkPage(ctx, { kind: 'https', url: '', fromSeq: '', errors: {} }));
  }

  @Post()
  @PageAuth()
  async create(@Dashboard() ctx: DashboardContext, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const text = (name: string) => singleParam(body, name).value ?? '';
    const shown: NewSinkForm = { kind: text('kind'), url: text('url').slice(0, 2048), fromSeq: text('fromSeq').slice(0, 20), errors: {} };
    const fromSeq = shown.fromSeq.trim() === '' ? undefined : /^\d{1,15}$/.test(shown.fromSeq.trim()) ? Number(shown.fromSeq.trim()) : shown.fromSeq;
    const token = text('token') === '' ? undefined : text('token');
    const form = await readForm(CreateAuditSinkDto, { kind: shown.kind, url: shown.url, token, fromSeq }, { kind: 'Kind', url: 'URL', token: 'HEC token', fromSeq: 'Start at record' }, ['kind', 'url', 'token', 'fromSeq']);
    const refuse = (status: number, errors: NewSinkForm['errors']) => sendPage(res, status, newAuditSinkPage(ctx, { ...shown, errors }));
    if (!form.valid) return refuse(400, form.errors);
    try {
      await this.recentSignIn.require(ctx, singleParam(body, 'password').value, 'Adding a sink');
      sendPage(res, 200, createdAuditSinkPage(ctx, await this.sinks.create(currentOrganization(ctx).id, form.value, ctx.actor)));
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      refuse(refusal.status, refusal.password !== undefined ? { password: refusal.password } : { [/token/.test(refusal.message) ? 'token' : /fromSeq/.test(refusal.message) ? 'fromSeq' : 'url']: refusal.message });
    }
  }

  @Get(':id/delete')
  @PageAuth()
  async confirmDelete(@Dashboard() ctx: DashboardContext, @Param('id') id: string, @Res() res: Response): Promise<void> {
    sendPage(res, 200, deleteAuditSinkPage(ctx, await this.sinkOf(ctx, id), {}));
  }

  @Post(':id/delete')
  @PageAuth()
  async delete(@Dashboard() ctx: DashboardContext, @Param('id') id: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const sink = await this.sinkOf(ctx, id);
    try {
      await this.recentSignIn.require(ctx, singleParam(body, 'password').value, 'Deleting a sink');
      await this.sinks.remove(orgId, id, ctx.actor);
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      return sendPage(res, refusal.status, deleteAuditSinkPage(ctx, sink, { error: refusal.password ?? refusal.message }));
    }
    sendRedirect(res, 303, `${sinksPath(orgId)}?done=deleted`);
  }

  private async sinkOf(ctx: DashboardContext, id: string): Promise<AuditSinkDto> {
    const sink = (await this.sinks.list(currentOrganization(ctx).id)).find((s) => s.id === id);
    if (!sink) throw new NotFoundError('Audit sink');
    return sink;
  }
}

/** What a refusal shows: its status, and its message at the recent-sign-in field or at the form's field. */
function refusalOf(error: unknown): { status: number; message: string; password?: string } | null {
  if (error instanceof RecentSignInRefusal) return { status: error.status, message: error.message, password: error.message };
  if (!(error instanceof DomainError) || error.kind === 'unavailable') return null;
  return { status: HTTP_STATUS_OF_KIND[error.kind], message: error.message };
}
