import { BadRequestException } from '@nestjs/common';
import { KeysetPageQueryDto } from '@app/common';
import { PageOptions } from '@app/service-keys';
import { readForm } from '../form';

/** `limit` and `cursor` of a list page's address, checked by the REST list's own DTO (bad ones: 400). */
export async function readPage(query: Record<string, unknown>): Promise<PageOptions> {
  const form = await readForm(KeysetPageQueryDto, query, { limit: 'limit', cursor: 'cursor' }, ['limit', 'cursor']);
  if (!form.valid) throw new BadRequestException(Object.values(form.errors).join('; '));
  return { limit: form.value.limit, cursor: form.value.cursor };
}
