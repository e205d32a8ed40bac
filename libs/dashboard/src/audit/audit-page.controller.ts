import { Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { type AuditActor, AuditChainService, AuditEventsService, ListAuditEventsQueryDto } from '@app/audit';
import { OrganizationRoute, PageAuth, RequestActor } from '@app/credentials';
import { ProjectsService } from '@app/projects';
import { MembersService } from '@app/people';
import { sendPage } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { isInvalidCursor } from '../query';
import { PICKER_PAGE_SIZE, readPicker } from '../views/picker';
import { AuditNamesReader } from './audit-names';
import { isActionChoice } from './audit-words';
import { auditPage, AuditView } from './audit.view';

/**
 * The Audit log section: `GET /api/organizations/:orgId/audit-events` as a page (admins only,
 * like the REST route), with its `action` filter as "Kind of event" and its `credential` filter
 * given a member's id as "Person". The filters stay in the page links.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/audit')
export class AuditPageController {
  constructor(
    private readonly events: AuditEventsService,
    private readonly members: MembersService,
    private readonly names: AuditNamesReader,
    private readonly projects: ProjectsService,
    private readonly chains: AuditChainService,
  ) {}

  @Get()
  @PageAuth()
  async list(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const picker = readPicker(query, { query: 'personQuery', cursor: 'personCursor' });
    const given = (value: unknown) => (value === '' ? undefined : value);
    const form = await readForm(
      ListAuditEventsQueryDto,
      {
        action: given(query.action),
        credential: given(query.person),
        cursor: query.cursor,
        projectId: given(query.project),
        client: given(query.client),
        tool: given(query.tool),
        decision: given(query.decision),
        from: utc(given(query.from)),
        to: utc(given(query.to)),
      },
      { action: 'Kind of event', credential: 'Person', cursor: 'Page', projectId: 'Project', client: 'AI client', tool: 'Tool', decision: 'Decision', from: 'From', to: 'To' },
      ['action', 'credential', 'cursor', 'projectId', 'client', 'tool', 'decision', 'from', 'to'],
    );
    const { action, credential: person, cursor, projectId, client, tool, decision, from, to } = form.value;
    const errors: AuditView['errors'] = {};
    for (const field of ['projectId', 'client', 'tool', 'decision', 'from', 'to'] as const) {
      if (form.errors[field]) errors[field] = form.errors[field];
    }
    const more = { project: text(query.project), client: text(query.client), tool: text(query.tool), decision: text(query.decision), from: text(query.from), to: text(query.to) };
    if (form.errors.action || (action !== undefined && !isActionChoice(action))) errors.action = 'Choose a kind of event from the list';
    const chosen = !form.errors.credential && typeof person === 'string' ? await this.members.get(orgId, person).catch(() => null) : null;
    if (form.errors.credential || (person !== undefined && !chosen)) errors.person = 'Choose a person from the list';
    // One page of the members matching the picker's search, never all of them (and the chosen one).
    const people = await this.members.page(orgId, { limit: PICKER_PAGE_SIZE, cursor: picker.cursor, query: picker.query });
    const members = chosen && !people.items.some((m) => m.userId === chosen.userId) ? [chosen, ...people.items] : people.items;
    const view: AuditView = {
      filters: { action: typeof action === 'string' ? action : '', person: typeof person === 'string' ? person : '', ...more },
      members,
      projects: (await this.projects.page(orgId, { limit: 100 })).items,
      people: { query: picker.query, nextCursor: people.nextCursor, onFirstPage: !picker.cursor },
      nextCursor: null,
      onFirstPage: cursor === undefined,
      errors,
    };
    if (Object.keys(errors).length > 0) return sendPage(res, 400, auditPage(ctx, view));
    const stale = 'This page link is not one this log gave out. Start again from the newest events.';
    if (form.errors.cursor) return sendPage(res, 400, auditPage(ctx, { ...view, alert: stale }));
    try {
      const page = await this.events.list(orgId, { action, credential: person, cursor, projectId, client, tool, decision, from, to });
      const names = await this.names.namesFor(orgId, page.items, members);
      sendPage(res, 200, auditPage(ctx, { ...view, events: page.items, names, nextCursor: page.nextCursor }));
    } catch (error) {
      if (!isInvalidCursor(error)) throw error;
      sendPage(res, 400, auditPage(ctx, { ...view, alert: stale }));
    }
  }

  /** The OCSF export of a time range (the REST export's lines), as a download; recorded like every export. */
  @Get('export')
  @PageAuth()
  async export(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @RequestActor() actor: AuditActor, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const from = text(query.from) ? String(utc(text(query.from))) : undefined;
    const to = text(query.to) ? String(utc(text(query.to))) : undefined;
    const bad = [from, to].some((t) => t !== undefined && Number.isNaN(new Date(t).getTime()));
    if (bad) return void res.status(400).type('text/plain').send('From and To must be times such as 2026-11-28T10:00 (UTC).');
    const lines = await this.chains.exportAudited(orgId, { from: from ? new Date(from) : undefined, to: to ? new Date(to) : undefined }, actor);
    res.status(200).setHeader('content-type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('content-disposition', `attachment; filename="audit-${orgId}.ndjson"`);
    res.setHeader('cache-control', 'no-store');
    for await (const line of lines) {
      if (!res.write(`${JSON.stringify(line)}\n`)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A time from the form's `datetime-local` field (no zone): read as UTC, as the page says. */
function utc(value: unknown): unknown {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? `${value}Z` : value;
}
