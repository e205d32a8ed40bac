import { accountChangeEvent } from './account-change';
import { apiActivityEvent } from './api-activity';
import { authenticationEvent } from './authentication';
import { authorizeSessionEvent } from './authorize-session';
import { entityManagementEvent } from './entity-management';
import type { AuditRecordSource, OcsfEvent } from './ocsf-common';
import { userAccessEvent } from './user-access';

type Builder = (source: AuditRecordSource) => OcsfEvent;

/** The OCSF class of each action that is not an Entity Management change (docs/audit.md, the mapping table). */
const CLASS_OF: Record<string, Builder> = {
  'tool.called': apiActivityEvent,
  'tool.denied': apiActivityEvent,
  'approval.requested': apiActivityEvent,
  'approval.pending': apiActivityEvent,
  'approval.consumed': apiActivityEvent,
  'approval.approved': apiActivityEvent,
  'approval.denied': apiActivityEvent,
  'approval.expired': apiActivityEvent,
  'approval.voided': apiActivityEvent,
  'mcp.refused': apiActivityEvent,
  'audit.exported': apiActivityEvent,
  'sign_in.succeeded': authenticationEvent,
  'sign_in.failed': authenticationEvent,
  'sso.sign_in': authenticationEvent,
  'session.reauthenticated': authenticationEvent,
  'session.reauthentication_failed': authenticationEvent,
  'consent.approved': authorizeSessionEvent,
  'consent.denied': authorizeSessionEvent,
  'grant.id_jag_exchanged': authorizeSessionEvent,
  'grant.revoked': authorizeSessionEvent,
  'refresh_token.reuse_detected': authorizeSessionEvent,
  'project_token.derived': authorizeSessionEvent,
  'project_token.revoked': authorizeSessionEvent,
  'project_token.rotated': authorizeSessionEvent,
  'token.issued': authorizeSessionEvent,
  'token.refused': authorizeSessionEvent,
  'member.added': userAccessEvent,
  'member.role_changed': userAccessEvent,
  'member.removed': userAccessEvent,
  'password.changed': accountChangeEvent,
  'account.email_released': accountChangeEvent,
  'password_reset.issued': accountChangeEvent,
  'password_reset.used': accountChangeEvent,
  'sso.account_created': accountChangeEvent,
  'sso.linked': accountChangeEvent,
  'scim.user_created': accountChangeEvent,
  'scim.user_updated': accountChangeEvent,
  'scim.user_deactivated': accountChangeEvent,
  'scim.user_reactivated': accountChangeEvent,
  'scim.user_deleted': accountChangeEvent,
};

/** The OCSF 1.8.0 event of a record, by its action's class; an agent's write (`capability.*`) is an API Activity. */
export function ocsfEventOf(source: AuditRecordSource): OcsfEvent {
  const build = source.action.startsWith('capability.') ? apiActivityEvent : (CLASS_OF[source.action] ?? entityManagementEvent);
  return build(source);
}
