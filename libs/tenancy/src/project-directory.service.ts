import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { isUuid, statement, statementIn } from '@app/database';
import { Membership } from './entities/membership.entity';
import { Organization } from './entities/organization.entity';
import { Project } from './entities/project.entity';

/** A live (not deleted) project. */
export interface ProjectRecord {
  id: string;
  name: string;
  organizationId: string;
  createdAt: Date;
}

/** A project with its organisation's name. */
export interface ProjectWithOrganization {
  id: string;
  name: string;
  organization: { id: string; name: string };
}

/** A project with its exact position in the list: `created_at` in whole microseconds since the epoch (a JS Date keeps only milliseconds). */
export type PositionedProject = ProjectRecord & { createdUs: string };

export interface DeletedProject {
  id: string;
  name: string;
  deletedAt: Date;
}

const COLUMNS = { id: true, name: true, organizationId: true, createdAt: true } as const;

const REACHABLE = statement(
  'projects.reachable_by',
  `SELECT EXISTS (
     SELECT 1 FROM projects p JOIN memberships m ON m.organization_id = p.organization_id AND m.user_id = $1
      WHERE p.id = $2 AND p.organization_id = $3 AND p.deleted_at IS NULL) AS reachable`,
);

/**
 * The `projects` table. Deleted projects are soft-deleted (`deleted_at`) and invisible to every
 * method here: for the rest of the service a deleted project does not exist. A project id that
 * is not a UUID finds nothing (never a database error).
 */
@Injectable()
export class ProjectDirectory {
  constructor(private readonly dataSource: DataSource) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(Project);
  }

  /**
   * One page of the organisation's live projects, oldest first, after a
   * (microseconds, id) position when given: keyset pagination, so projects created or deleted
   * while paging never shift the pages. With `nameContains`, only the projects whose name
   * contains that text, in any case (the pickers' search).
   */
  async page(organizationId: string, limit: number, after?: { us: string; id: string }, nameContains?: string): Promise<PositionedProject[]> {
    const params: unknown[] = [organizationId, limit];
    let where = '';
    if (after) {
      params.push(after.us, after.id);
      where = `AND (created_at, id) > (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid)`;
    }
    if (nameContains) {
      params.push(containsPattern(nameContains));
      where += ` AND name ILIKE $${params.length}`;
    }
    const rows: { id: string; name: string; organization_id: string; created_at: Date; created_us: string }[] = await this.dataSource.query(
      `SELECT id, name, organization_id, created_at,
              ((extract(epoch FROM created_at) * 1000000)::numeric(20, 0))::text AS created_us
         FROM projects
        WHERE organization_id = $1 AND deleted_at IS NULL ${where}
        ORDER BY created_at, id
        LIMIT $2`,
      params,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, organizationId: r.organization_id, createdAt: new Date(r.created_at), createdUs: r.created_us }));
  }

  /**
   * The live project if it belongs to the organisation, else null. With `lock: 'share'` (inside
   * `em`'s transaction) a concurrent deletion waits until that transaction ends.
   */
  async find(
    organizationId: string,
    projectId: string,
    em?: EntityManager,
    options: { lock?: 'share' } = {},
  ): Promise<ProjectRecord | null> {
    if (!isUuid(projectId)) return null;
    const project = await this.repo(em).findOne({
      where: { id: projectId, organizationId, deletedAt: IsNull() },
      select: COLUMNS,
      ...(options.lock === 'share' ? { lock: { mode: 'pessimistic_read' as const } } : {}),
    });
    return project ? toRecord(project) : null;
  }

  /** The live project with its organisation's name, if it belongs to that organisation. */
  async findWithOrganization(organizationId: string, projectId: string): Promise<ProjectWithOrganization | null> {
    const row = await this.repo()
      .createQueryBuilder('p')
      .innerJoin(Organization, 'o', 'o.id = p.organizationId')
      .select(['p.id AS id', 'p.name AS name', 'o.id AS organization_id', 'o.name AS organization_name'])
      .where('p.id = :projectId AND p.organizationId = :organizationId AND p.deletedAt IS NULL', { projectId, organizationId })
      .getRawOne<{ id: string; name: string; organization_id: string; organization_name: string }>();
    return row ? { id: row.id, name: row.name, organization: { id: row.organization_id, name: row.organization_name } } : null;
  }

  /** The live ones of these projects with their organisations' names, by project id (deleted ones are absent). */
  async namesOf(projectIds: readonly string[]): Promise<Map<string, ProjectWithOrganization>> {
    const ids = [...new Set(projectIds)].filter(isUuid);
    if (ids.length === 0) return new Map();
    const rows = await this.repo()
      .createQueryBuilder('p')
      .innerJoin(Organization, 'o', 'o.id = p.organizationId')
      .select(['p.id AS id', 'p.name AS name', 'o.id AS organization_id', 'o.name AS organization_name'])
      .where('p.id IN (:...ids) AND p.deletedAt IS NULL', { ids })
      .getRawMany<{ id: string; name: string; organization_id: string; organization_name: string }>();
    return new Map(rows.map((r) => [r.id, { id: r.id, name: r.name, organization: { id: r.organization_id, name: r.organization_name } }]));
  }

  /** The live project with its organisation, if the person is a member of that organisation (else null). */
  async reachableOne(userId: string, projectId: string, em?: EntityManager): Promise<ProjectWithOrganization | null> {
    if (!isUuid(projectId)) return null;
    const row = await (em ?? this.dataSource.manager)
      .getRepository(Membership)
      .createQueryBuilder('m')
      .innerJoin(Organization, 'o', 'o.id = m.organizationId')
      .innerJoin(Project, 'p', 'p.organizationId = o.id AND p.deletedAt IS NULL')
      .select(['o.id AS organization_id', 'o.name AS organization_name', 'p.id AS project_id', 'p.name AS project_name'])
      .where('m.userId = :userId AND p.id = :projectId', { userId, projectId })
      .getRawOne<{ organization_id: string; organization_name: string; project_id: string; project_name: string }>();
    return row ? { id: row.project_id, name: row.project_name, organization: { id: row.organization_id, name: row.organization_name } } : null;
  }

  /** Whether the project is live, in that organisation, and the person is a member of it. */
  async isReachableBy(userId: string, organizationId: string, projectId: string, em?: EntityManager): Promise<boolean> {
    const [row] = await statementIn<{ reachable: boolean }>(em ?? this.dataSource.manager, REACHABLE, [userId, projectId, organizationId]);
    return row.reachable;
  }

  async create(organizationId: string, name: string, em?: EntityManager): Promise<ProjectRecord> {
    return toRecord(await this.repo(em).save(this.repo(em).create({ organizationId, name, deletedAt: null })));
  }

  /**
   * Renames the live project, locking its row until `em`'s transaction ends (a concurrent
   * rename or deletion waits); null when there is none. Returns the project and its former name.
   */
  async rename(
    organizationId: string,
    projectId: string,
    name: string,
    em: EntityManager,
  ): Promise<{ project: ProjectRecord; previousName: string } | null> {
    if (!isUuid(projectId)) return null;
    const current = await this.repo(em).findOne({
      where: { id: projectId, organizationId, deletedAt: IsNull() },
      select: COLUMNS,
      lock: { mode: 'pessimistic_write' },
    });
    if (!current) return null;
    if (current.name !== name) await this.repo(em).update({ id: projectId }, { name });
    return { project: toRecord({ ...current, name }), previousName: current.name };
  }

  /** Marks the live project deleted; null when there is none (already deleted, or another organisation's). */
  async softDelete(organizationId: string, projectId: string, em?: EntityManager): Promise<DeletedProject | null> {
    if (!isUuid(projectId)) return null;
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set({ deletedAt: () => 'now()' })
      .where('id = :projectId AND organization_id = :organizationId AND deleted_at IS NULL', { projectId, organizationId })
      .returning('id, name, deleted_at')
      .updateEntity(false)
      .execute();
    const [row] = result.raw as { id: string; name: string; deleted_at: Date }[];
    return row ? { id: row.id, name: row.name, deletedAt: new Date(row.deleted_at) } : null;
  }
}

/** An ILIKE pattern matching text that contains `text` (its `%`, `_` and `\\` taken literally). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function toRecord(project: Project): ProjectRecord {
  return { id: project.id, name: project.name, organizationId: project.organizationId, createdAt: project.createdAt };
}
