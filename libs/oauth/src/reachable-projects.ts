import type { ProjectWithOrganization } from '@app/tenancy';
import type { ConsentProjectGroup } from './views/consent.view';

/** The consent page's project choice: the projects a person can reach, grouped by organisation (in the given order). */
export function groupProjects(projects: ProjectWithOrganization[]): ConsentProjectGroup[] {
  const groups = new Map<string, ConsentProjectGroup>();
  for (const project of projects) {
    let group = groups.get(project.organization.id);
    if (!group) {
      group = { organizationId: project.organization.id, organizationName: project.organization.name, projects: [] };
      groups.set(project.organization.id, group);
    }
    group.projects.push({ id: project.id, name: project.name });
  }
  return [...groups.values()];
}
