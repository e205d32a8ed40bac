import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { NotFoundError } from '@app/common';
import { Capability, CapabilityDefinition, ProjectContext } from '@app/capabilities';

const input = z.object({}).strict();

const output = z.object({
  id: z.string(),
  name: z.string(),
  organization: z.object({ id: z.string(), name: z.string() }),
  permissions: z.array(z.string()),
});

/**
 * `get_project`: the project the token is bound to, its organisation, and what this token may
 * do there. A deleted project is not found, exactly like one that never existed.
 */
@Capability()
@Injectable()
export class GetProjectCapability implements CapabilityDefinition<typeof input> {
  readonly name = 'get_project';
  readonly title = 'Get project';
  readonly description =
    'Returns the project this token is bound to (id and name), its organisation (id and name) and the permissions this token carries. Takes no arguments.';
  readonly permission = 'project:read' as const;
  readonly inputSchema = input;
  readonly outputSchema = output;
  readonly annotations = { readOnlyHint: true, idempotentHint: true };

  constructor(private readonly dataSource: DataSource) {}

  async handle(_args: z.infer<typeof input>, context: ProjectContext): Promise<z.infer<typeof output>> {
    const rows: { id: string; name: string; organization_id: string; organization_name: string }[] = await this.dataSource.query(
      `SELECT p.id, p.name, o.id AS organization_id, o.name AS organization_name
         FROM projects p JOIN organizations o ON o.id = p.organization_id
        WHERE p.id = $1 AND p.organization_id = $2 AND p.deleted_at IS NULL`,
      [context.projectId, context.organizationId],
    );
    const row = rows[0];
    if (!row) throw new NotFoundError('Project');
    return {
      id: row.id,
      name: row.name,
      organization: { id: row.organization_id, name: row.organization_name },
      permissions: [...context.permissions],
    };
  }
}
