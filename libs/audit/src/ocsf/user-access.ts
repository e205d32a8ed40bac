import { type AuditRecordSource, baseEvent, type OcsfEvent } from './ocsf-common';

/** User Access Management (3005): a person's role in an organisation given, changed or taken away. */
export const USER_ACCESS = { classUid: 3005, className: 'User Access Management', categoryUid: 3, categoryName: 'Identity & Access Management' };

export function userAccessEvent(source: AuditRecordSource): OcsfEvent {
  const removed = source.action === 'member.removed';
  const event = baseEvent(source, USER_ACCESS, removed ? { id: 2, name: 'Revoke Privileges' } : { id: 1, name: 'Assign Privileges' });
  const m = source.metadata;
  event.user = { uid: source.targetId ?? (typeof m.userId === 'string' ? m.userId : 'unknown'), type_id: 1, type: 'User' };
  const role = typeof m.role === 'string' ? m.role : typeof m.newRole === 'string' ? m.newRole : typeof m.to === 'string' ? m.to : undefined;
  event.privileges = role ? [role] : [];
  if (source.organizationId) event.resources = [{ uid: source.organizationId, type: 'organization' }];
  return event;
}
