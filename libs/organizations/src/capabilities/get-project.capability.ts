import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { NotFoundError } from '@app/common';
import { Capability, CapabilityDefinition, ProjectContext } from '@app/capabilities';
import { ProjectDirectory } from '@app/tenancy';

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
  readonly risk = 'read' as const;
  readonly annotations = { idempotentHint: true };

  constructor(private readonly projects: ProjectDirectory) {}

  async handle(_args: z.infer<typeof input>, context: ProjectContext): Promise<z.infer<typeof output>> {
    const project = await this.projects.findWithOrganization(context.organizationId, context.projectId);
    if (!project) throw new NotFoundError('Project');
    return {
      id: project.id,
      name: project.name,
      organization: project.organization,
      permissions: [...context.permissions],
    };
  }
}
