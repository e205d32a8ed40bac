/** What an agent token may do: the scopes of the OAuth flow and the permissions of service keys. */
export const AGENT_PERMISSIONS = {
  'project:read': 'Read the bound project: its id, name and organisation.',
  'tasks:read': "List and read the project's tasks.",
  'tasks:write': 'Create tasks and change their title, description and status.',
  'tasks:delete': 'Delete tasks.',
} as const;
export type AgentPermission = keyof typeof AGENT_PERMISSIONS;
export const AGENT_PERMISSION_NAMES = Object.keys(AGENT_PERMISSIONS) as AgentPermission[];

/** What a scoped `rk_` API key may do on the REST surface of its organisation. */
export const API_KEY_PERMISSIONS = {
  'projects:read': "List and read the organisation's projects.",
  'projects:write': 'Create and delete projects.',
  'service_keys:read': 'List service keys and the metadata of their derived tokens.',
  'service_keys:write': 'Create and revoke service keys; derive and revoke project tokens.',
  'members:read': "List the organisation's members.",
  'audit:read': "Read the organisation's audit events.",
} as const;
export type ApiKeyPermission = keyof typeof API_KEY_PERMISSIONS;
export const API_KEY_PERMISSION_NAMES = Object.keys(API_KEY_PERMISSIONS) as ApiKeyPermission[];

export function isAgentPermission(value: unknown): value is AgentPermission {
  return typeof value === 'string' && Object.hasOwn(AGENT_PERMISSIONS, value);
}

export function isApiKeyPermission(value: unknown): value is ApiKeyPermission {
  return typeof value === 'string' && Object.hasOwn(API_KEY_PERMISSIONS, value);
}
