import { MEMBERSHIP_ROLES } from '@app/tenancy';
import { normalizeEmailDomain } from './email-domains';
import type { IdJagClient, RoleMapping } from './entities';
import { IdentityProviderError } from './identity.errors';

/** Bounds on what one organisation's settings may hold. */
export const IDENTITY_PROVIDER_LIMITS = {
  emailDomains: 50,
  roleMappings: 100,
  idJagClients: 100,
  scopes: 20,
  scope: 100,
  text: 500,
  clientSecret: 2000,
} as const;

/**
 * What an admin sends (REST `PUT`, the dashboard form): the whole settings, replacing what was
 * stored. `clientSecret` is required when connecting and optional afterwards (absent: the stored
 * one is kept). Types are checked here too, so every caller gets the same refusals.
 */
export interface IdentityProviderInput {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  emailDomains?: string[];
  defaultRole?: string;
  groupsClaim?: string | null;
  /** Extra OpenID scopes asked for at sign-in besides `openid email profile` (e.g. `groups`). */
  scopes?: string[];
  roleMappings?: { group: string; role: string }[];
  requireSso?: boolean;
  /** Turning on requireSso although it locks out people who cannot sign in through the IdP. */
  confirmLockout?: boolean;
  acceptIdJag?: boolean;
  idJagClients?: { clientId: string; projectId: string | null }[];
}

/** The settings once checked and normalised: what is saved. */
export interface NormalisedIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  emailDomains: string[];
  defaultRole: 'member';
  groupsClaim: string | null;
  scopes: string[];
  roleMappings: RoleMapping[];
  requireSso: boolean;
  confirmLockout: boolean;
  acceptIdJag: boolean;
  idJagClients: IdJagClient[];
}

const err = (code: string, message: string) => new IdentityProviderError(code, message);

/** Checks and normalises the input; the messages name the field and never echo the secret. */
export function normaliseIdentityProvider(input: IdentityProviderInput): NormalisedIdentityProvider {
  if (!input || typeof input !== 'object') throw err('invalid_identity_provider', 'the settings must be a JSON object');
  const { text: maxText } = IDENTITY_PROVIDER_LIMITS;
  const requiredText = (value: unknown, field: string, max: number = maxText): string => {
    if (typeof value !== 'string' || value.trim() === '') throw err(`invalid_${snake(field)}`, `${field} is required (a non-empty string)`);
    if (value.length > max) throw err(`invalid_${snake(field)}`, `${field} must be at most ${max} characters`);
    return value.trim();
  };
  const flag = (value: unknown, field: string): boolean => {
    if (value === undefined) return false;
    if (typeof value !== 'boolean') throw err(`invalid_${snake(field)}`, `${field} must be true or false`);
    return value;
  };
  const list = <T>(value: unknown, field: string, max: number): T[] => {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw err(`invalid_${snake(field)}`, `${field} must be an array`);
    if (value.length > max) throw err(`invalid_${snake(field)}`, `${field} may hold at most ${max} entries`);
    return value as T[];
  };

  const issuer = requiredText(input.issuer, 'issuer');
  const clientId = requiredText(input.clientId, 'clientId');
  let clientSecret: string | undefined;
  if (input.clientSecret !== undefined) {
    if (typeof input.clientSecret !== 'string' || input.clientSecret === '') {
      throw err('invalid_client_secret', 'clientSecret must be a non-empty string (leave it out to keep the stored one)');
    }
    if (input.clientSecret.length > IDENTITY_PROVIDER_LIMITS.clientSecret) {
      throw err('invalid_client_secret', `clientSecret must be at most ${IDENTITY_PROVIDER_LIMITS.clientSecret} characters`);
    }
    clientSecret = input.clientSecret;
  }

  const emailDomains = [
    ...new Set(list<unknown>(input.emailDomains, 'emailDomains', IDENTITY_PROVIDER_LIMITS.emailDomains).map((d, i) => normalizeEmailDomain(d, `emailDomains[${i}]`))),
  ].sort();

  const defaultRole = input.defaultRole ?? 'member';
  if (defaultRole !== 'member') {
    throw err(
      'invalid_default_role',
      defaultRole === 'admin'
        ? 'defaultRole cannot be admin: give admin rights through roleMappings (groups) or in the members list'
        : 'defaultRole must be member',
    );
  }

  let groupsClaim: string | null = null;
  if (input.groupsClaim !== undefined && input.groupsClaim !== null && input.groupsClaim !== '') {
    groupsClaim = requiredText(input.groupsClaim, 'groupsClaim', 200);
  }
  const scopes = extraScopes(list<unknown>(input.scopes, 'scopes', IDENTITY_PROVIDER_LIMITS.scopes));
  const roleMappings: RoleMapping[] = list<{ group?: unknown; role?: unknown }>(input.roleMappings, 'roleMappings', IDENTITY_PROVIDER_LIMITS.roleMappings).map(
    (m, i) => {
      if (!m || typeof m !== 'object') throw err('invalid_role_mappings', `roleMappings[${i}] must be an object {group, role}`);
      if (typeof m.group !== 'string' || m.group.trim() === '' || m.group.length > maxText) {
        throw err('invalid_role_mappings', `roleMappings[${i}].group must be a non-empty string of at most ${maxText} characters`);
      }
      if (!(MEMBERSHIP_ROLES as readonly unknown[]).includes(m.role)) {
        throw err('invalid_role_mappings', `roleMappings[${i}].role must be one of: ${MEMBERSHIP_ROLES.join(', ')}`);
      }
      return { group: m.group.trim(), role: m.role as RoleMapping['role'] };
    },
  );
  if (roleMappings.length && !groupsClaim) throw err('invalid_role_mappings', 'roleMappings need groupsClaim: the ID token claim that lists the groups');
  const groups = new Set<string>();
  for (const [i, m] of roleMappings.entries()) {
    if (groups.has(m.group)) throw err('invalid_role_mappings', `roleMappings[${i}].group repeats the group ${JSON.stringify(m.group).slice(0, 100)}`);
    groups.add(m.group);
  }

  const idJagClients: IdJagClient[] = list<{ clientId?: unknown; projectId?: unknown }>(
    input.idJagClients,
    'idJagClients',
    IDENTITY_PROVIDER_LIMITS.idJagClients,
  ).map((c, i) => {
    if (!c || typeof c !== 'object') throw err('invalid_id_jag_clients', `idJagClients[${i}] must be an object {clientId, projectId}`);
    if (typeof c.clientId !== 'string' || c.clientId.trim() === '' || c.clientId.length > maxText) {
      throw err('invalid_id_jag_clients', `idJagClients[${i}].clientId must be a non-empty string of at most ${maxText} characters`);
    }
    const projectId = c.projectId ?? null;
    if (projectId !== null && typeof projectId !== 'string') {
      throw err('invalid_id_jag_clients', `idJagClients[${i}].projectId must be a project id or null`);
    }
    return { clientId: c.clientId.trim(), projectId };
  });
  const clientIds = new Set<string>();
  for (const [i, c] of idJagClients.entries()) {
    if (clientIds.has(c.clientId)) throw err('invalid_id_jag_clients', `idJagClients[${i}].clientId is listed twice`);
    clientIds.add(c.clientId);
  }

  return {
    issuer,
    clientId,
    clientSecret,
    emailDomains,
    defaultRole: 'member',
    groupsClaim,
    scopes,
    roleMappings,
    requireSso: flag(input.requireSso, 'requireSso'),
    confirmLockout: flag(input.confirmLockout, 'confirmLockout'),
    acceptIdJag: flag(input.acceptIdJag, 'acceptIdJag'),
    idJagClients,
  };
}

/** The scopes sign-in always asks for; listing them again in `scopes` changes nothing. */
export const STANDARD_SSO_SCOPES = ['openid', 'email', 'profile'] as const;

/** A scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The extra scopes, in the order given: each a scope token of at most 100 characters; the
 * standard ones (always sent) and repeats are dropped.
 */
function extraScopes(values: unknown[]): string[] {
  const max = IDENTITY_PROVIDER_LIMITS.scope;
  const scopes: string[] = [];
  for (const [i, value] of values.entries()) {
    if (typeof value !== 'string' || value.trim() === '') throw err('invalid_scopes', `scopes[${i}] must be a non-empty string`);
    const scope = value.trim();
    if (scope.length > max) throw err('invalid_scopes', `scopes[${i}] must be at most ${max} characters`);
    if (!SCOPE_TOKEN.test(scope)) {
      throw err('invalid_scopes', `scopes[${i}] is not a scope token (RFC 6749 §3.3: printable ASCII without spaces, double quotes or backslashes)`);
    }
    if (!(STANDARD_SSO_SCOPES as readonly string[]).includes(scope) && !scopes.includes(scope)) scopes.push(scope);
  }
  return scopes;
}

function snake(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
