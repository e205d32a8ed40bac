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

export function isApiKeyPermission(value: unknown): value is ApiKeyPermission {
  return typeof value === 'string' && Object.hasOwn(API_KEY_PERMISSIONS, value);
}
