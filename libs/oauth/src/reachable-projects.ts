import type { EntityManager } from 'typeorm';
import type { ConsentProjectGroup } from './views/consent.view';

/** One project a person can reach, with its organisation. */
export interface ReachableProject {
  organizationId: string;
  organizationName: string;
  projectId: string;
  projectName: string;
}

/**
 * Projects the person can reach: not deleted, in an organisation they are a member of, by
 * organisation then project name. (A read of the organisation tables, for the consent page.)
 */
export async function reachableProjects(em: EntityManager, userId: string): Promise<ReachableProject[]> {
  const rows: { organization_id: string; organization_name: string; project_id: string; project_name: string }[] = await em.query(
    `SELECT o.id AS organization_id, o.name AS organization_name, p.id AS project_id, p.name AS project_name
       FROM memberships m
       JOIN organizations o ON o.id = m.organization_id
       JOIN projects p ON p.organization_id = o.id AND p.deleted_at IS NULL
      WHERE m.user_id = $1
      ORDER BY o.name, o.id, p.name, p.id`,
    [userId],
  );
  return rows.map((r) => ({
    organizationId: r.organization_id,
    organizationName: r.organization_name,
    projectId: r.project_id,
    projectName: r.project_name,
  }));
}

/** The signed-in person's email, shown on the consent page. */
export async function emailOf(em: EntityManager, userId: string): Promise<string> {
  const [user]: { email: string }[] = await em.query('SELECT email FROM users WHERE id = $1', [userId]);
  return user?.email ?? '';
}

export function groupProjects(projects: ReachableProject[]): ConsentProjectGroup[] {
  const groups = new Map<string, ConsentProjectGroup>();
  for (const project of projects) {
    let group = groups.get(project.organizationId);
    if (!group) {
      group = { organizationId: project.organizationId, organizationName: project.organizationName, projects: [] };
      groups.set(project.organizationId, group);
    }
    group.projects.push({ id: project.projectId, name: project.projectName });
  }
  return [...groups.values()];
}
