/**
 * The parts every OCSF 1.8.0 event of the audit trail shares (docs/audit.md, "OCSF"): the
 * metadata, the actor, the source endpoint, the status and what OCSF has no attribute for
 * (`unmapped`). One module per class builds the rest.
 */

import { domainToASCII } from 'node:url';

export const OCSF_VERSION = '1.8.0';
export const SERVICE_CHAIN = 'service';

export type OcsfEvent = Record<string, unknown> & { time: number; metadata: Record<string, unknown> };

/** What a record is built from: the row as written (and, for old rows, as read back). */
export interface AuditRecordSource {
  id: string;
  /** Milliseconds since the epoch. */
  time: number;
  organizationId: string | null;
  projectId: string | null;
  actorType: string;
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  metadata: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
  /** A person's email and a service key's name, for the actor (never in the record's JSON shape). */
  actorEmail?: string | null;
  actorName?: string | null;
  traceId?: string | null;
}

/** Actions that record a refusal or a failure (OCSF `status_id` 2). */
const FAILURES = new Set(['sign_in.failed', 'session.reauthentication_failed', 'token.refused', 'tool.denied', 'consent.denied', 'mcp.refused', 'refresh_token.reuse_detected']);

export function failed(source: AuditRecordSource): boolean {
  if (FAILURES.has(source.action)) return true;
  const outcome = source.metadata.outcome;
  return typeof outcome === 'string' && outcome !== 'succeeded';
}

/** The class-independent attributes; `activity` is the class's activity id and its caption. */
export function baseEvent(
  source: AuditRecordSource,
  kind: { classUid: number; className: string; categoryUid: number; categoryName: string },
  activity: { id: number; name: string },
): OcsfEvent {
  const failure = failed(source);
  const metadata: Record<string, unknown> = {
    version: OCSF_VERSION,
    product: { name: 'Agent Gateway', vendor_name: 'Agent Gateway' },
    uid: source.id,
    event_code: source.action,
  };
  if (source.organizationId) metadata.tenant_uid = source.organizationId;
  if (source.traceId) metadata.correlation_uid = source.traceId;
  const event: OcsfEvent = {
    time: source.time,
    metadata,
    class_uid: kind.classUid,
    class_name: kind.className,
    category_uid: kind.categoryUid,
    category_name: kind.categoryName,
    activity_id: activity.id,
    activity_name: activity.name,
    type_uid: kind.classUid * 100 + activity.id,
    type_name: `${kind.className}: ${activity.name}`,
    severity_id: source.action === 'refresh_token.reuse_detected' ? 4 : failure ? 3 : 1,
    severity: source.action === 'refresh_token.reuse_detected' ? 'High' : failure ? 'Medium' : 'Informational',
    status_id: failure ? 2 : 1,
    status: failure ? 'Failure' : 'Success',
    actor: actorOf(source),
  };
  const endpoint = srcEndpointOf(source);
  if (endpoint) event.src_endpoint = endpoint;
  if (typeof source.metadata.count === 'number') event.count = source.metadata.count;
  if (typeof source.metadata.reason === 'string') event.status_detail = source.metadata.reason;
  event.unmapped = unmappedOf(source);
  return event;
}

/** The OCSF `user` of an actor: a person, a service key (a derived token's), the operator, the system. */
function actorUser(source: AuditRecordSource): Record<string, unknown> | undefined {
  const m = source.metadata;
  switch (source.actorType) {
    case 'user':
      return withEmail({ uid: source.actorId ?? 'unknown', type_id: 1, type: 'User' }, source.actorEmail);
    case 'agent_token':
      if (typeof m.serviceKeyId === 'string') {
        return { uid: m.serviceKeyId, ...(typeof source.actorName === 'string' ? { name: source.actorName } : {}), type_id: 4, type: 'Service' };
      }
      if (typeof m.userId === 'string') return withEmail({ uid: m.userId, type_id: 1, type: 'User' }, source.actorEmail);
      return undefined;
    case 'api_key':
      return { uid: source.actorId ?? 'unknown', name: 'rk_ key', type_id: 4, type: 'Service' };
    case 'scim_token':
      return { uid: source.actorId ?? 'unknown', name: 'SCIM client', type_id: 4, type: 'Service' };
    case 'cli':
      return { uid: 'operator', type_id: 3, type: 'System' };
    case 'system':
      return { uid: 'system', type_id: 3, type: 'System' };
    default:
      return undefined;
  }
}

/** OCSF 1.8.0's `email_t`, its schema's pattern as written there: ASCII only, and a dot in the domain. */
const OCSF_EMAIL = /^[a-zA-Z0-9!#$%&'*+-/=?^_`{|}~.]+@[a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+$/;

/**
 * An address as an OCSF `email_t` holds it: an internationalised domain in its ASCII (punycode)
 * form, `ana@bücher.example` as `ana@xn--bcher-kva.example`. Undefined when it cannot be written
 * so (a local part outside ASCII, `zoë@example.com`; a domain without a dot): a record whose
 * `email_addr` broke the pattern would fail its class's schema at the SIEM.
 */
export function ocsfEmail(email: unknown): string | undefined {
  if (typeof email !== 'string') return undefined;
  const at = email.lastIndexOf('@');
  if (at <= 0) return undefined;
  const domain = domainToASCII(email.slice(at + 1));
  const address = `${email.slice(0, at)}@${domain}`;
  return domain && OCSF_EMAIL.test(address) ? address : undefined;
}

/**
 * A user object with the address: in `email_addr` when `email_t` can hold it, else (and only when
 * the user has no name yet) as the user's `name`, so the record still says who it was.
 */
export function withEmail(user: Record<string, unknown>, email: unknown): Record<string, unknown> {
  if (typeof email !== 'string') return user;
  const address = ocsfEmail(email);
  if (address) return { ...user, email_addr: address };
  return user.name === undefined ? { ...user, name: email } : user;
}

export function actorOf(source: AuditRecordSource): Record<string, unknown> {
  const actor: Record<string, unknown> = {};
  const user = actorUser(source);
  if (user) actor.user = user;
  const clientId = source.actorType === 'oauth_client' ? source.actorId : source.metadata.clientId;
  if (typeof clientId === 'string') {
    actor.app_uid = clientId;
    if (typeof source.metadata.clientName === 'string') actor.app_name = source.metadata.clientName;
  }
  if (source.actorType === 'anonymous' || Object.keys(actor).length === 0) actor.session = { uid: 'anonymous' };
  return actor;
}

const IPV4 = /^(\d{1,3})(\.\d{1,3}){3}$/;

/** The source address; an IPv4-mapped IPv6 address as its IPv4 form. */
export function srcEndpointOf(source: AuditRecordSource): Record<string, unknown> | undefined {
  if (!source.ip) return undefined;
  const ip = source.ip.startsWith('::ffff:') && IPV4.test(source.ip.slice(7)) ? source.ip.slice(7) : source.ip;
  return { ip };
}

/** The agent credential behind a record: the token, and its service key or grant. */
function credentialOf(source: AuditRecordSource): Record<string, unknown> | undefined {
  const m = source.metadata;
  if (source.actorType !== 'agent_token' || !source.actorId) {
    return typeof m.credentialKind === 'string' && typeof m.credentialId === 'string' ? { kind: m.credentialKind, id: m.credentialId } : undefined;
  }
  if (typeof m.serviceKeyId === 'string') return { kind: 'project_token', id: source.actorId, serviceKeyId: m.serviceKeyId };
  if (typeof m.grantId === 'string') return { kind: 'oauth_access_token', id: source.actorId, grantId: m.grantId };
  return { kind: 'agent_token', id: source.actorId };
}

function unmappedOf(source: AuditRecordSource): Record<string, unknown> {
  const unmapped: Record<string, unknown> = { metadata: source.metadata };
  const credential = credentialOf(source);
  if (credential) unmapped.credential = credential;
  if (typeof source.metadata.argumentsSha256 === 'string') unmapped.argumentsSha256 = source.metadata.argumentsSha256;
  if (Array.isArray(source.metadata.organizations)) unmapped.organizations = source.metadata.organizations;
  if (source.userAgent) unmapped.user_agent = source.userAgent;
  if (source.targetType) unmapped.target = { type: source.targetType, id: source.targetId };
  return unmapped;
}

/** The project (and the record's target) as OCSF resources. */
export function resourcesOf(source: AuditRecordSource): Record<string, unknown>[] {
  const resources: Record<string, unknown>[] = [];
  if (source.projectId) resources.push({ uid: source.projectId, type: 'project' });
  if (source.targetId && source.targetType && source.targetType !== 'project') resources.push({ uid: source.targetId, type: source.targetType });
  return resources;
}

/** The verb at the end of an action name: `project.deleted` → `deleted`. */
export function verbOf(action: string): string {
  return action.slice(action.lastIndexOf('.') + 1);
}
