/**
 * The agent permission catalogue: what an agent token may do, and so what a capability may
 * require. The scopes of the OAuth flow and the permissions of service keys are these names;
 * `GET /api/permissions` lists them with their descriptions.
 */
export const AGENT_PERMISSIONS = {
  'project:read': 'Read the bound project: its id, name and organisation.',
  'tasks:read': "List and read the project's tasks.",
  'tasks:write': 'Create tasks and change their title, description and status.',
  'tasks:delete': 'Delete tasks.',
} as const;
export type AgentPermission = keyof typeof AGENT_PERMISSIONS;
export const AGENT_PERMISSION_NAMES = Object.keys(AGENT_PERMISSIONS) as AgentPermission[];

export function isAgentPermission(value: unknown): value is AgentPermission {
  return typeof value === 'string' && Object.hasOwn(AGENT_PERMISSIONS, value);
}
