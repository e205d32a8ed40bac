import { BadRequestException } from '@nestjs/common';
import { KeysetPageQueryDto } from '@app/common';
import { ProjectDto, ProjectsService } from '@app/projects';
import { PageOptions } from '@app/service-keys';
import { readForm } from '../form';
import { PICKER_PAGE_SIZE, PickerState } from '../views/picker';

/** `limit` and `cursor` of a list page's address, checked by the REST list's own DTO (bad ones: 400). */
export async function readPage(query: Record<string, unknown>): Promise<PageOptions> {
  const form = await readForm(KeysetPageQueryDto, query, { limit: 'limit', cursor: 'cursor' }, ['limit', 'cursor']);
  if (!form.valid) throw new BadRequestException(Object.values(form.errors).join('; '));
  return { limit: form.value.limit, cursor: form.value.cursor };
}

/** The "Project" choices of the derive form: one page of the matches of its search. */
export interface DeriveChoices {
  /** This page of the projects whose name contains the search (and the chosen one, after a refused post). */
  projects: ProjectDto[];
  query: string;
  nextCursor: string | null;
  onFirstPage: boolean;
  /** False only when the organisation has no project at all. */
  anyProject: boolean;
}

/**
 * One page of the organisation's projects for the derive form (never all of them: an
 * organisation may have tens of thousands), narrowed by the picker's search; a project chosen
 * in a refused post stays offered even when it is not on this page.
 */
export async function deriveChoices(projects: ProjectsService, orgId: string, picker: PickerState, chosenId?: string): Promise<DeriveChoices> {
  const page = await projects.page(orgId, { limit: PICKER_PAGE_SIZE, cursor: picker.cursor, query: picker.query });
  const items = [...page.items];
  if (chosenId && !items.some((p) => p.id === chosenId)) {
    const chosen = await projects.get(orgId, chosenId).catch(() => null);
    if (chosen) items.unshift(chosen);
  }
  const onFirstPage = !picker.cursor;
  const anyProject = items.length > 0 || !onFirstPage || (picker.query !== '' && (await projects.page(orgId, { limit: 1 })).items.length > 0);
  return { projects: items, query: picker.query, nextCursor: page.nextCursor, onFirstPage, anyProject };
}

/** The derive form's search parameters in a key page's address. */
export const DERIVE_PICKER = { query: 'projectQuery', cursor: 'projectCursor' } as const;
