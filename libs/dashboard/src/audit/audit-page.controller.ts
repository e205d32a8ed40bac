import { Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AuditEventsService, ListAuditEventsQueryDto } from '@app/audit';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { MembersService } from '@app/organizations';
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
  ) {}

  @Get()
  @PageAuth()
  async list(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const picker = readPicker(query, { query: 'personQuery', cursor: 'personCursor' });
    const given = (value: unknown) => (value === '' ? undefined : value);
    const form = await readForm(
      ListAuditEventsQueryDto,
      { action: given(query.action), credential: given(query.person), cursor: query.cursor },
      { action: 'Kind of event', credential: 'Person', cursor: 'Page' },
      ['action', 'credential', 'cursor'],
    );
    const { action, credential: person, cursor } = form.value;
    const errors: AuditView['errors'] = {};
    if (form.errors.action || (action !== undefined && !isActionChoice(action))) errors.action = 'Choose a kind of event from the list';
    const chosen = !form.errors.credential && typeof person === 'string' ? await this.members.get(orgId, person).catch(() => null) : null;
    if (form.errors.credential || (person !== undefined && !chosen)) errors.person = 'Choose a person from the list';
    // One page of the members matching the picker's search, never all of them (and the chosen one).
    const people = await this.members.page(orgId, { limit: PICKER_PAGE_SIZE, cursor: picker.cursor, query: picker.query });
    const members = chosen && !people.items.some((m) => m.userId === chosen.userId) ? [chosen, ...people.items] : people.items;
    const view: AuditView = {
      filters: { action: typeof action === 'string' ? action : '', person: typeof person === 'string' ? person : '' },
      members,
      people: { query: picker.query, nextCursor: people.nextCursor, onFirstPage: !picker.cursor },
      nextCursor: null,
      onFirstPage: cursor === undefined,
      errors,
    };
    if (errors.action || errors.person) return sendPage(res, 400, auditPage(ctx, { ...view, filters: { action: '', person: '' } }));
    const stale = 'This page link is not one this log gave out. Start again from the newest events.';
    if (form.errors.cursor) return sendPage(res, 400, auditPage(ctx, { ...view, alert: stale }));
    try {
      const page = await this.events.list(orgId, { action, credential: person, cursor });
      const names = await this.names.namesFor(orgId, page.items, members);
      sendPage(res, 200, auditPage(ctx, { ...view, events: page.items, names, nextCursor: page.nextCursor }));
    } catch (error) {
      if (!isInvalidCursor(error)) throw error;
      sendPage(res, 400, auditPage(ctx, { ...view, alert: stale }));
    }
  }
}
