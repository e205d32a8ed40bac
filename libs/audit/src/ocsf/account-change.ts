import { type AuditRecordSource, baseEvent, type OcsfEvent, verbOf } from './ocsf-common';

/** Account Change (3001): accounts made, linked, provisioned, their passwords changed or reset. */
export const ACCOUNT_CHANGE = { classUid: 3001, className: 'Account Change', categoryUid: 3, categoryName: 'Identity & Access Management' };

const ACTIVITIES: Record<string, { id: number; name: string }> = {
  'password.changed': { id: 3, name: 'Password Change' },
  'password_reset.issued': { id: 4, name: 'Password Reset' },
  'password_reset.used': { id: 4, name: 'Password Reset' },
  'scim.user_deactivated': { id: 5, name: 'Disable' },
  'scim.user_reactivated': { id: 2, name: 'Enable' },
  'scim.user_deleted': { id: 6, name: 'Delete' },
};

export function accountChangeEvent(source: AuditRecordSource): OcsfEvent {
  const verb = verbOf(source.action);
  const activity = ACTIVITIES[source.action] ?? (verb.endsWith('created') ? { id: 1, name: 'Create' } : { id: 99, name: 'Other' });
  const event = baseEvent(source, ACCOUNT_CHANGE, activity);
  const uid = source.targetType === 'user' && source.targetId ? source.targetId : source.actorType === 'user' && source.actorId ? source.actorId : source.targetId;
  event.user = { uid: uid ?? 'unknown', type_id: 1, type: 'User' };
  return event;
}
