import { BadRequestException } from '@nestjs/common';
import { Acting, PageOptions, PageQueryDto } from '@app/service-keys';
import type { DashboardContext } from '../dashboard-context';
import { readForm } from '../form';

/** The person acting on a page, as the service's audit trail takes it (what REST passes for a session). */
export function actingOf(ctx: DashboardContext): Acting {
  return { principal: ctx.principal, origin: ctx.origin };
}

/** `limit` and `cursor` of a list page's address, checked by the REST list's own DTO (bad ones: 400). */
export async function readPage(query: Record<string, unknown>): Promise<PageOptions> {
  const form = await readForm(PageQueryDto, query, { limit: 'limit', cursor: 'cursor' }, ['limit', 'cursor']);
  if (!form.valid) throw new BadRequestException(Object.values(form.errors).join('; '));
  return { limit: form.value.limit, cursor: form.value.cursor };
}
