import type { ProjectDeletionImpact, ProjectDto } from '@app/projects';
import { html, HtmlPage } from '@app/web';
import type { DashboardContext } from '../dashboard-context';
import { csrfField, dashboardPage, sectionPath } from '../views/layout';
import { projectNameField } from './projects.view';

/** Renaming a project: the "Project name" field with the current name. */
export function renameProjectPage(ctx: DashboardContext, project: ProjectDto, form?: { name: string; error?: string }): HtmlPage {
  const base = sectionPath(project.organizationId, 'projects');
  return dashboardPage(ctx, {
    title: `Rename ${project.name}`,
    section: 'projects',
    body: html`<div class="card">
<h1>Rename project “${project.name}”</h1>
<p class="muted">Its tokens and connected AI clients keep working; they see the new name.</p>
<form method="post" action="${base}/${project.id}/rename" novalidate>
${csrfField(ctx)}
${projectNameField(form ?? { name: project.name })}
<div class="actions"><button type="submit" class="primary">Rename project</button></div>
</form>
<p><a href="${base}">Back to projects</a></p>
</div>`,
  });
}

/** The confirmation before deleting a project: what ends with it, then the button that does it. */
export function deleteProjectPage(ctx: DashboardContext, impact: ProjectDeletionImpact): HtmlPage {
  const { project } = impact;
  const base = sectionPath(project.organizationId, 'projects');
  return dashboardPage(ctx, {
    title: `Delete ${project.name}?`,
    section: 'projects',
    body: html`<div class="card">
<h1>Delete project “${project.name}”?</h1>
<p>Deleting it ends, at once:</p>
<ul id="project-deletion-ends">
<li><strong>${count(impact.derivedTokens, 'derived token', 'derived tokens')}</strong> (project tokens of service keys): machines using them are refused from their next request;</li>
<li><strong>${count(impact.connectedClients, 'connected client', 'connected clients')}</strong> (AI clients approved for this project): their tokens are refused and they cannot refresh them.</li>
</ul>
<p>Its tasks can no longer be reached by anyone. This cannot be undone.</p>
<form method="post" action="${base}/${project.id}/delete">
${csrfField(ctx)}
<div class="actions"><button type="submit" class="danger primary">Delete project</button></div>
</form>
<p><a href="${base}">Cancel, keep the project</a></p>
</div>`,
  });
}

function count(n: number, singular: string, plural: string): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
