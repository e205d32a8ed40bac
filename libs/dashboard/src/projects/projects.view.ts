import type { ProjectDto } from '@app/projects';
import { PROJECT_NAME_MAX_LENGTH } from '@app/tenancy';
import { html, HtmlPage, SafeHtml } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, pager, sectionPath } from '../views/layout';
import { dataTable, emptyState } from '../views/table';

export interface ProjectsView {
  projects: ProjectDto[];
  nextCursor: string | null;
  onFirstPage: boolean;
  canManage: boolean;
  /** The create form's value and error after a refused post. */
  form?: { name: string; error?: string };
  notice?: string;
}

/** Projects: the list (a page at a time), and for admins rename and delete per project and the "Project name" form (the first thing a new organisation sees). */
export function projectsPage(ctx: DashboardContext, view: ProjectsView): HtmlPage {
  const orgId = ctx.organization!.id;
  const base = sectionPath(orgId, 'projects');
  const none = view.projects.length === 0;
  const empty = none && view.onFirstPage;
  return dashboardPage(ctx, {
    title: 'Projects',
    section: 'projects',
    notice: view.notice,
    body: html`<h1>Projects</h1>
${empty
  ? emptyState(
      'No projects yet.',
      view.canManage
        ? 'Every AI client and every token acts on exactly one project: create the first one to connect anything.'
        : 'An administrator of this organisation creates them; ask one.',
    )
  : none
    ? html`<p>No more projects. <a href="${base}">Back to the first page</a>.</p>`
    : dataTable(
        `Projects of ${ctx.organization!.name}`,
        ['Name', 'Created', view.canManage && 'Actions'],
        view.projects.map(
        (p) => html`<tr><td>${p.name}</td><td><time datetime="${p.createdAt}">${p.createdAt.slice(0, 10)}</time></td>${
          view.canManage
            ? html`<td class="inline"><a href="${base}/${p.id}/rename" aria-label="Rename ${p.name}">Rename</a> <a href="${base}/${p.id}/delete" aria-label="Delete ${p.name}">Delete</a></td>`
            : ''
        }</tr>`,
        ),
      )}
${pager(base, view.nextCursor, view.onFirstPage)}
${view.canManage ? createForm(ctx, base, view.form, empty) : ''}`,
  });
}

function createForm(ctx: DashboardContext, action: string, form: ProjectsView['form'], first: boolean) {
  return html`<section class="card" aria-labelledby="new-project">
<h2 id="new-project">${first ? 'Create your first project' : 'New project'}</h2>
<form method="post" action="${action}" novalidate>
${csrfField(ctx)}
${projectNameField(form)}
<div class="actions"><button type="submit" class="primary">Create project</button></div>
</form>
</section>`;
}

/** The "Project name" field, with its error after a refused post. */
export function projectNameField(form: { name: string; error?: string } | undefined): SafeHtml {
  const error = form?.error;
  return html`<label for="project-name">Project name</label>
${error ? html`<p class="field-error" id="project-name-error">${error}</p>` : ''}
<input type="text" id="project-name" name="name" maxlength="${PROJECT_NAME_MAX_LENGTH}" required value="${form?.name ?? ''}"${error ? html` aria-invalid="true" aria-describedby="project-name-error"` : ''}>`;
}
