import { type AuditRecordSource, baseEvent, type OcsfEvent, verbOf } from './ocsf-common';

/** Authorize Session (3003): consents, grants and the tokens issued on them (scopes as `privileges`). */
export const AUTHORIZE_SESSION = { classUid: 3003, className: 'Authorize Session', categoryUid: 3, categoryName: 'Identity & Access Management' };

const REVOKES = new Set(['revoked', 'reuse_detected', 'denied', 'refused']);

function privilegesOf(m: Record<string, unknown>): string[] {
  for (const key of ['scopes', 'permissions', 'scope']) {
    const value = m[key];
    if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
    if (typeof value === 'string') return value.split(' ').filter(Boolean);
  }
  return [];
}

export function authorizeSessionEvent(source: AuditRecordSource): OcsfEvent {
  const revoke = REVOKES.has(verbOf(source.action));
  const event = baseEvent(source, AUTHORIZE_SESSION, revoke ? { id: 99, name: 'Other' } : { id: 1, name: 'Assign Privileges' });
  const m = source.metadata;
  // Who the session is for: the person of the grant, else the service key of a project token, else the actor.
  if (typeof m.userId === 'string') event.user = { uid: m.userId, type_id: 1, type: 'User' };
  else if (typeof m.serviceKeyId === 'string') event.user = { uid: m.serviceKeyId, type_id: 4, type: 'Service' };
  else if (source.actorType === 'user' && source.actorId) event.user = { uid: source.actorId, type_id: 1, type: 'User' };
  else event.user = { uid: source.actorId ?? 'unknown', type_id: 0, type: 'Unknown' };
  event.privileges = privilegesOf(m);
  const sessionUid = typeof m.grantId === 'string' ? m.grantId : source.targetId;
  if (sessionUid) event.session = { uid: sessionUid };
  return event;
}
