import { type AuditRecordSource, baseEvent, type OcsfEvent, resourcesOf } from './ocsf-common';

/** API Activity (6003): tool calls and their steps, refused MCP requests, exports of the trail. */
export const API_ACTIVITY = { classUid: 6003, className: 'API Activity', categoryUid: 6, categoryName: 'Application Activity' };

const ACTIVITIES: Record<string, { id: number; name: string }> = {
  create: { id: 1, name: 'Create' },
  read: { id: 2, name: 'Read' },
  update: { id: 3, name: 'Update' },
  delete: { id: 4, name: 'Delete' },
  other: { id: 99, name: 'Other' },
};

/** What a tool call does, from the capability's risk when the record names it, else from the tool's name. */
function activityOf(source: AuditRecordSource): { id: number; name: string } {
  const m = source.metadata;
  if (source.action === 'audit.exported' || source.action === 'audit.verified') return ACTIVITIES.read;
  if (source.action === 'mcp.refused') return ACTIVITIES.other;
  if (typeof m.activity === 'string' && ACTIVITIES[m.activity]) return ACTIVITIES[m.activity];
  if (m.readOnly === true) return ACTIVITIES.read;
  const tool = typeof m.tool === 'string' ? m.tool : source.action.replace(/^capability\./, '');
  if (/^(get|list|search|read|find)_/.test(tool)) return ACTIVITIES.read;
  if (/^(create|add|new)_/.test(tool)) return ACTIVITIES.create;
  if (/^(delete|remove)_/.test(tool)) return ACTIVITIES.delete;
  return ACTIVITIES.update;
}

/** The decision a tool-call record states, and the rule that made it. */
function authorizationOf(source: AuditRecordSource): Record<string, unknown> | undefined {
  const m = source.metadata;
  let decision: string | undefined;
  if (source.action === 'tool.denied') decision = 'denied';
  else if (source.action === 'approval.requested' || source.action === 'approval.pending') decision = 'approval_required';
  else if (source.action === 'approval.consumed') decision = 'approved_run';
  // A person's decision on an approval, and its end without one.
  else if (source.action === 'approval.approved') decision = 'approved';
  else if (source.action === 'approval.denied') decision = 'denied';
  else if (source.action === 'approval.expired') decision = 'expired';
  else if (source.action === 'approval.voided') decision = 'voided';
  else if (source.action === 'tool.called' || source.action.startsWith('capability.')) decision = 'allowed';
  if (!decision) return undefined;
  const policy =
    typeof m.ruleId === 'string'
      ? { uid: m.ruleId, ...(m.policyVersion === undefined ? {} : { version: String(m.policyVersion) }) }
      : { name: 'default' };
  return { decision, policy };
}

export function apiActivityEvent(source: AuditRecordSource): OcsfEvent {
  const event = baseEvent(source, API_ACTIVITY, activityOf(source));
  const authorization = authorizationOf(source);
  if (authorization) (event.actor as Record<string, unknown>).authorizations = [authorization];
  const m = source.metadata;
  const operation = typeof m.operation === 'string' ? m.operation : source.action === 'audit.exported' ? 'GET /api/organizations/:orgId/audit-events/export' : 'tools/call';
  const api: Record<string, unknown> = { operation, service: { name: 'mcp' } };
  if (typeof m.tool === 'string') api.request = { uid: source.id, data: { tool: m.tool } };
  event.api = api;
  if (!event.src_endpoint) event.src_endpoint = { name: 'unknown' };
  const resources = resourcesOf(source);
  if (resources.length > 0) event.resources = resources;
  return event;
}
