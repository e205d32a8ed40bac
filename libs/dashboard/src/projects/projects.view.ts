import type { ProjectDto } from '@app/organizations';
import { html, HtmlPage } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage } from '../views/layout';

export interface ProjectsView {
  projects: ProjectDto[];
  canManage: boolean;
  /** The create form's value and error after a refused post. */
  form?: { name: string; error?: string };
  notice?: string;
}

/** Projects: the list, and for admins the "Project name" form (the first thing a new organisation sees). */
export function projectsPage(ctx: DashboardContext, view: ProjectsView): HtmlPage {
  const orgId = ctx.organization!.id;
  const empty = view.projects.length === 0;
  return dashboardPage(ctx, {
    title: 'Projects',
    section: 'projects',
    notice: view.notice,
    body: html`<h1>Projects</h1>
${empty
  ? html`<div class="empty"><p><strong>No projects yet.</strong> ${
      view.canManage
        ? 'Every AI client and every token acts on exactly one project: create the first one to connect anything.'
        : 'An administrator of this organisation creates them; ask one.'
    }</p></div>`
  : html`<div class="table-wrap"><table>
<caption class="visually-hidden">Projects of ${ctx.organization!.name}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Created</th></tr></thead>
<tbody>${view.projects.map((p) => html`<tr><td>${p.name}</td><td><time datetime="${p.createdAt}">${p.createdAt.slice(0, 10)}</time></td></tr>`)}</tbody>
</table></div>`}
${view.canManage ? createForm(ctx, orgId, view.form, empty) : ''}`,
  });
}

function createForm(ctx: DashboardContext, orgId: string, form: ProjectsView['form'], first: boolean) {
  const error = form?.error;
  return html`<section class="card" aria-labelledby="new-project">
<h2 id="new-project">${first ? 'Create your first project' : 'New project'}</h2>
<form method="post" action="/orgs/${orgId}/projects" novalidate>
${csrfField(ctx)}
<label for="project-name">Project name</label>
${error ? html`<p class="field-error" id="project-name-error">${error}</p>` : ''}
<input type="text" id="project-name" name="name" maxlength="200" required value="${form?.name ?? ''}"${error ? html` aria-invalid="true" aria-describedby="project-name-error"` : ''}>
<div class="actions"><button type="submit" class="primary">Create project</button></div>
</form>
</section>`;
}
