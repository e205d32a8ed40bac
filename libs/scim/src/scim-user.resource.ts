import { clipText } from '@app/common';
import type { ProvisionedUser } from '@app/identity';
import { SCIM_SCHEMAS } from './scim-schemas';
import type { ScimUserInput, ScimUserState } from './scim-user.input';

/** The SCIM representation of a provisioned person (RFC 7643 §4.1); `base` is the service's `/scim/v2` URL. */
export function scimUserResource(row: ProvisionedUser, base: string) {
  const formatted = [row.givenName, row.familyName].filter(Boolean).join(' ');
  return {
    schemas: [SCIM_SCHEMAS.user, SCIM_SCHEMAS.gatewayUser],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    userName: row.userName,
    name: {
      ...(row.givenName !== null ? { givenName: row.givenName } : {}),
      ...(row.familyName !== null ? { familyName: row.familyName } : {}),
      ...(formatted ? { formatted } : {}),
    },
    ...(row.displayName !== null ? { displayName: row.displayName } : {}),
    active: row.active,
    emails: [{ value: row.userName, type: 'work', primary: true }],
    [SCIM_SCHEMAS.gatewayUser]: { role: row.role },
    meta: {
      resourceType: 'User',
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${base}/Users/${row.id}`,
    },
  };
}

/** The state of a new resource from its input, with the defaults of RFC 7643 (active) and ours (member). */
export function initialState(input: ScimUserInput): ScimUserState {
  return {
    userName: input.userName,
    externalId: input.externalId ?? null,
    givenName: input.givenName ?? null,
    familyName: input.familyName ?? null,
    displayName: input.displayName ?? null,
    active: input.active ?? true,
    role: input.role ?? 'member',
  };
}

export function stateOf(row: ProvisionedUser): ScimUserState {
  return {
    userName: row.userName,
    externalId: row.externalId,
    givenName: row.givenName,
    familyName: row.familyName,
    displayName: row.displayName,
    active: row.active,
    role: row.role,
  };
}

/** The name of an account SCIM makes: the display name, else given and family names, else the email's local part. */
export function accountName(state: ScimUserState): string {
  const full = [state.givenName, state.familyName].filter(Boolean).join(' ');
  return clipText(state.displayName ?? (full || state.userName.slice(0, state.userName.indexOf('@'))), 200);
}
