import { type AuditRecordSource, baseEvent, failed, type OcsfEvent, withEmail } from './ocsf-common';

/** Authentication (3002): sign-ins (password, single sign-on) and their failures, step-ups. */
export const AUTHENTICATION = { classUid: 3002, className: 'Authentication', categoryUid: 3, categoryName: 'Identity & Access Management' };

export function authenticationEvent(source: AuditRecordSource): OcsfEvent {
  const event = baseEvent(source, AUTHENTICATION, { id: 1, name: 'Logon' });
  const m = source.metadata;
  // The person signing in: the target when named, else the actor; a failed sign-in of no known account by the email tried.
  const uid = source.targetType === 'user' && source.targetId ? source.targetId : source.actorType === 'user' ? source.actorId : null;
  const user = withEmail(uid ? { uid, type_id: 1, type: 'User' } : { name: typeof m.email === 'string' ? m.email : 'unknown', type_id: 0, type: 'Unknown' }, m.email);
  event.user = user;
  event.service = { name: 'Agent Gateway' };
  event.is_remote = true;
  if (source.action.startsWith('session.reauthenticat')) event.is_new_logon = false;
  if (typeof m.method === 'string') event.auth_protocol = m.method === 'sso' ? 'OpenID Connect' : 'Password';
  if (source.action.startsWith('sso.')) event.auth_protocol = 'OpenID Connect';
  if (typeof m.sessionId === 'string') event.session = { uid: m.sessionId };
  if (failed(source) && typeof m.reason === 'string') event.status_detail = m.reason;
  return event;
}
