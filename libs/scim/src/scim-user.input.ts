import { hasUnsafeDisplayCharacters, unsafeDisplayMessage } from '@app/common';
import type { MembershipRole } from '@app/tenancy';
import { ScimError } from './scim.errors';
import { SCIM_SCHEMAS } from './scim-schemas';

/** What SCIM manages of a person: the `Users` resource's writable attributes. */
export interface ScimUserState {
  userName: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  active: boolean;
  role: MembershipRole;
}

/** A create or replace request: what it names (absent attributes are `undefined`). */
export type ScimUserInput = { userName: string } & Partial<Omit<ScimUserState, 'userName'>>;

const MAX_TEXT = 256;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ROLE_ATTRIBUTE = `${SCIM_SCHEMAS.gatewayUser}:role`.toLowerCase();

/**
 * Attributes of the core and enterprise User schemas that this service does not keep: accepted
 * and ignored, so an identity provider's default attribute mappings work (Entra sends
 * `title`, `emails[type eq "work"].value`, the enterprise extension's `department`, …).
 */
const IGNORED_CORE = new Set([
  'emails',
  'nickname',
  'profileurl',
  'title',
  'usertype',
  'preferredlanguage',
  'locale',
  'timezone',
  'password',
  'phonenumbers',
  'ims',
  'photos',
  'addresses',
  'groups',
  'entitlements',
  'roles',
  'x509certificates',
  'name.middlename',
  'name.honorificprefix',
  'name.honorificsuffix',
  'name.formatted',
  'schemas',
  'meta',
  'id',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string attribute: trimmed, bounded, empty → null. */
function text(value: unknown, name: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw ScimError.invalidValue(`${name} must be a string`);
  const trimmed = value.trim();
  if (trimmed.length > MAX_TEXT) throw ScimError.invalidValue(`${name} must be at most ${MAX_TEXT} characters`);
  if (hasUnsafeDisplayCharacters(trimmed)) throw ScimError.invalidValue(unsafeDisplayMessage(name));
  return trimmed === '' ? null : trimmed;
}

/** `active`: a boolean, or the strings "True"/"False" in any case (as Microsoft Entra sends them). */
export function booleanValue(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  throw ScimError.invalidValue(`${name} must be true or false`);
}

function roleValue(value: unknown): MembershipRole {
  if (value === 'admin' || value === 'member') return value;
  throw ScimError.invalidValue(`${SCIM_SCHEMAS.gatewayUser}:role must be "admin" or "member"`);
}

/** `userName`: an email, lower-cased. */
export function userNameValue(value: unknown): string {
  if (typeof value !== 'string' || !EMAIL_RE.test(value.trim())) throw ScimError.invalidValue('userName must be the person\'s email address');
  const email = value.trim().toLowerCase();
  if (email.length > MAX_TEXT) throw ScimError.invalidValue(`userName must be at most ${MAX_TEXT} characters`);
  return email;
}

function checkSchemas(body: Record<string, unknown>, required: string): void {
  if (body.schemas === undefined) return;
  if (!Array.isArray(body.schemas) || !body.schemas.every((s) => typeof s === 'string')) throw ScimError.invalidSyntax('schemas must be an array of schema URIs');
  if (!body.schemas.some((s) => (s as string).toLowerCase() === required.toLowerCase())) throw ScimError.invalidSyntax(`schemas must include ${required}`);
}

/** A `User` resource in a create (POST) or replace (PUT) request. */
export function parseUserResource(body: unknown): ScimUserInput {
  if (!isObject(body)) throw ScimError.invalidSyntax('The request body must be a SCIM User resource (a JSON object)');
  checkSchemas(body, SCIM_SCHEMAS.user);
  const input: ScimUserInput = { userName: '' };
  let sawUserName = false;
  for (const [key, value] of Object.entries(body)) {
    const name = key.toLowerCase();
    if (name === 'username') {
      input.userName = userNameValue(value);
      sawUserName = true;
    } else if (name === 'name') {
      if (value === null) {
        input.givenName = null;
        input.familyName = null;
        continue;
      }
      if (!isObject(value)) throw ScimError.invalidValue('name must be an object (givenName, familyName, formatted)');
      for (const [sub, subValue] of Object.entries(value)) setAttribute(input, `name.${sub}`, subValue);
    } else if (name === SCIM_SCHEMAS.gatewayUser.toLowerCase()) {
      if (!isObject(value)) throw ScimError.invalidValue(`${SCIM_SCHEMAS.gatewayUser} must be an object`);
      for (const [sub, subValue] of Object.entries(value)) setAttribute(input, `${SCIM_SCHEMAS.gatewayUser}:${sub}`, subValue);
    } else if (name === SCIM_SCHEMAS.enterpriseUser.toLowerCase()) {
      continue;
    } else {
      setAttribute(input, key, value);
    }
  }
  if (!sawUserName) throw ScimError.invalidValue('userName is required (the person\'s email address)');
  return input;
}

/**
 * Sets one attribute named by its path (`active`, `name.givenName`, the extension's `role`),
 * case-insensitively as RFC 7643 §2.1 has attribute names. An attribute no schema of the
 * resource defines is refused (`invalidPath`); one this service does not keep is ignored.
 */
function setAttribute(target: Partial<ScimUserState>, path: string, value: unknown): void {
  const name = path.toLowerCase();
  switch (name) {
    case 'username':
      target.userName = userNameValue(value);
      return;
    case 'externalid':
      target.externalId = text(value, 'externalId');
      return;
    case 'displayname':
      target.displayName = text(value, 'displayName');
      return;
    case 'name.givenname':
      target.givenName = text(value, 'name.givenName');
      return;
    case 'name.familyname':
      target.familyName = text(value, 'name.familyName');
      return;
    case 'active':
      target.active = booleanValue(value, 'active');
      return;
    case ROLE_ATTRIBUTE:
      target.role = roleValue(value);
      return;
  }
  if (IGNORED_CORE.has(name) || IGNORED_CORE.has(name.replace(/\[.*$/, '').replace(/\..*$/, '')) || name.startsWith(SCIM_SCHEMAS.enterpriseUser.toLowerCase())) return;
  throw ScimError.invalidPath(`Unknown attribute ${JSON.stringify(path.slice(0, 100))}: this service knows userName, externalId, name.givenName, name.familyName, displayName, active and ${SCIM_SCHEMAS.gatewayUser}:role`);
}

/**
 * Applies a PATCH request (RFC 7644 §3.5.2) to the current state: `Operations` with `op` add,
 * replace or remove in any case (Entra sends "Replace"), with a `path` (`active`,
 * `name.givenName`, …) or without one and an object `value` (Okta sends
 * `{"op":"replace","value":{"active":false}}`).
 */
export function applyPatch(current: ScimUserState, body: unknown): ScimUserState {
  if (!isObject(body)) throw ScimError.invalidSyntax('The request body must be a SCIM PatchOp message (a JSON object)');
  checkSchemas(body, SCIM_SCHEMAS.patchOp);
  const operations = body.Operations ?? body.operations;
  if (!Array.isArray(operations) || operations.length === 0) throw ScimError.invalidSyntax('Operations must be a non-empty array');
  if (operations.length > 100) throw ScimError.invalidSyntax('At most 100 operations per request');
  const next: ScimUserState = { ...current };
  for (const [index, operation] of operations.entries()) {
    if (!isObject(operation)) throw ScimError.invalidSyntax(`Operations[${index}] must be an object`);
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw ScimError.invalidSyntax(`Operations[${index}].op must be add, replace or remove`);
    const path = operation.path;
    if (path !== undefined && (typeof path !== 'string' || path.trim() === '')) throw ScimError.invalidPath(`Operations[${index}].path must be a non-empty string`);
    if (op === 'remove') {
      if (path === undefined) throw ScimError.noTarget(`Operations[${index}]: remove needs a path`);
      removeAttribute(next, path.trim());
      continue;
    }
    if (!('value' in operation)) throw ScimError.invalidValue(`Operations[${index}] needs a value`);
    if (path === undefined) {
      if (!isObject(operation.value)) throw ScimError.invalidValue(`Operations[${index}]: without a path, value must be an object of attributes`);
      applyValueObject(next, operation.value);
    } else {
      applyPath(next, path.trim(), operation.value);
    }
  }
  return next;
}

function applyPath(target: ScimUserState, path: string, value: unknown): void {
  const name = path.toLowerCase();
  if (name === 'name') {
    if (!isObject(value)) throw ScimError.invalidValue('name must be an object (givenName, familyName, formatted)');
    for (const [sub, subValue] of Object.entries(value)) setAttribute(target, `name.${sub}`, subValue);
    return;
  }
  if (name === SCIM_SCHEMAS.gatewayUser.toLowerCase()) {
    if (!isObject(value)) throw ScimError.invalidValue(`${SCIM_SCHEMAS.gatewayUser} must be an object`);
    for (const [sub, subValue] of Object.entries(value)) setAttribute(target, `${SCIM_SCHEMAS.gatewayUser}:${sub}`, subValue);
    return;
  }
  setAttribute(target, path, value);
}

function applyValueObject(target: ScimUserState, value: Record<string, unknown>): void {
  for (const [key, sub] of Object.entries(value)) applyPath(target, key, sub);
}

function removeAttribute(target: ScimUserState, path: string): void {
  switch (path.toLowerCase()) {
    case 'username':
      throw ScimError.mutability('userName is required and cannot be removed');
    case 'active':
      throw ScimError.invalidValue('active cannot be removed: replace it with false to deprovision');
    case 'name':
      target.givenName = null;
      target.familyName = null;
      return;
    case ROLE_ATTRIBUTE:
    case SCIM_SCHEMAS.gatewayUser.toLowerCase():
      target.role = 'member';
      return;
  }
  setAttribute(target, path, null);
}
