import { type AuditRecordSource, baseEvent, type OcsfEvent, verbOf } from './ocsf-common';

/** Entity Management (3004): keys, clients, projects, organisations, invitations, identity providers, policies. */
export const ENTITY_MANAGEMENT = { classUid: 3004, className: 'Entity Management', categoryUid: 3, categoryName: 'Identity & Access Management' };

const CREATE = new Set(['created', 'registered', 'issued', 'derived']);
const DELETE = new Set(['revoked', 'removed', 'deleted', 'withdrawn']);

export function entityManagementEvent(source: AuditRecordSource): OcsfEvent {
  const verb = verbOf(source.action);
  const activity = CREATE.has(verb) ? { id: 1, name: 'Create' } : DELETE.has(verb) ? { id: 4, name: 'Delete' } : { id: 3, name: 'Update' };
  const event = baseEvent(source, ENTITY_MANAGEMENT, activity);
  const type = source.targetType ?? source.action.slice(0, source.action.indexOf('.'));
  const entity: Record<string, unknown> = { type, uid: source.targetId ?? source.organizationId ?? type };
  if (typeof source.metadata.name === 'string') entity.name = source.metadata.name;
  event.entity = entity;
  return event;
}
