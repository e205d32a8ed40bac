import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AuditChainService } from '@app/audit';
import { type AuditSinkDto, AuditSinksService, CreateAuditSinkDto } from '@app/audit-sinks';
import { ReauthenticationService } from '@app/auth';
import { DomainError, HTTP_STATUS_OF_KIND, NotFoundError } from '@app/common';
import { OrganizationRoute, PageAuth, ReauthenticationRequiredError, RecentSignIn } from '@app/credentials';
import { sendPage, sendRedirect, singleParam } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { noticeOf } from '../views/when';
import { auditSinksPage, createdAuditSinkPage, deleteAuditSinkPage, newAuditSinkPage, type NewSinkForm, sinksPath } from './audit-sinks.view';

const NOTICES: Record<string, string> = { deleted: 'Audit sink deleted. Nothing more is delivered to it.' };
/** Refusals of the re-authentication shown at the password field (an empty text: the error's own message). */
const PASSWORD_ERRORS: Record<string, string> = { invalid_credentials: 'That is not your password', reauthenticate_with_sso: '', too_many_login_attempts: '' };

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
    private readonly recent: RecentSignIn,
    private readonly reauthentication: ReauthenticationService,
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
    sendPage(res, 200, newAuditSinkPage(ctx, { kind: 'https', url: '', fromSeq: '', errors: {} }, ctx.principal.ssoIssuer !== null));
  }

  @Post()
  @PageAuth()
  async create(@Dashboard() ctx: DashboardContext, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const text = (name: string) => singleParam(body, name).value ?? '';
    const shown: NewSinkForm = { kind: text('kind'), url: text('url').slice(0, 2048), fromSeq: text('fromSeq').slice(0, 20), errors: {} };
    const fromSeq = shown.fromSeq.trim() === '' ? undefined : /^\d{1,15}$/.test(shown.fromSeq.trim()) ? Number(shown.fromSeq.trim()) : shown.fromSeq;
    const token = text('token') === '' ? undefined : text('token');
    const form = await readForm(CreateAuditSinkDto, { kind: shown.kind, url: shown.url, token, fromSeq }, { kind: 'Kind', url: 'URL', token: 'HEC token', fromSeq: 'Start at record' }, ['kind', 'url', 'token', 'fromSeq']);
    const refuse = (status: number, errors: NewSinkForm['errors']) => sendPage(res, status, newAuditSinkPage(ctx, { ...shown, errors }, ctx.principal.ssoIssuer !== null));
    if (!form.valid) return refuse(400, form.errors);
    try {
      await this.stepUp(ctx, singleParam(body, 'password').value, 'Adding a sink');
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
    sendPage(res, 200, deleteAuditSinkPage(ctx, await this.sinkOf(ctx, id), { singleSignOn: ctx.principal.ssoIssuer !== null }));
  }

  @Post(':id/delete')
  @PageAuth()
  async delete(@Dashboard() ctx: DashboardContext, @Param('id') id: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const sink = await this.sinkOf(ctx, id);
    try {
      await this.stepUp(ctx, singleParam(body, 'password').value, 'Deleting a sink');
      await this.sinks.remove(orgId, id, ctx.actor);
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      return sendPage(res, refusal.status, deleteAuditSinkPage(ctx, sink, { error: refusal.password ?? refusal.message, singleSignOn: ctx.principal.ssoIssuer !== null }));
    }
    sendRedirect(res, 303, `${sinksPath(orgId)}?done=deleted`);
  }

  private async sinkOf(ctx: DashboardContext, id: string): Promise<AuditSinkDto> {
    const sink = (await this.sinks.list(currentOrganization(ctx).id)).find((s) => s.id === id);
    if (!sink) throw new NotFoundError('Audit sink');
    return sink;
  }

  /** Re-authenticates with the password when one was typed, then requires a sign-in of the last 15 minutes. */
  private async stepUp(ctx: DashboardContext, password: string | undefined, what: string): Promise<void> {
    if (password) await this.reauthentication.withPassword(ctx.principal, password, ctx.actor.origin ?? {});
    try {
      await this.recent.require(ctx.principal);
    } catch (error) {
      if (!(error instanceof ReauthenticationRequiredError)) throw error;
      const how = ctx.principal.ssoIssuer ? 'sign out and sign in again through single sign-on' : 'enter your password';
      throw new StepUpNeeded(`${what} needs a sign-in within the last 15 minutes: ${how}`);
    }
  }
}

class StepUpNeeded extends Error {}

/** What a refusal shows: its status, and its message at the password field or at the form's field. */
function refusalOf(error: unknown): { status: number; message: string; password?: string } | null {
  if (error instanceof StepUpNeeded) return { status: 401, message: error.message, password: error.message };
  if (!(error instanceof DomainError) || error.kind === 'unavailable') return null;
  const onPassword = PASSWORD_ERRORS[error.code];
  return { status: HTTP_STATUS_OF_KIND[error.kind], message: error.message, ...(onPassword !== undefined ? { password: onPassword || error.message } : {}) };
}
