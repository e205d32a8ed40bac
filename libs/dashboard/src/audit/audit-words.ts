import type { AUDIT_ACTIONS, AuditEventDto } from '@app/audit';

type KnownAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Every audited action in words, grouped for the filter: the type makes a new action without
 * words a compile error. The two that never belong to an organisation (a client registering, a
 * person using their reset link) are named but not offered as filters.
 */
export const ACTION_LABELS: Record<KnownAction, string> = {
  'project.created': 'Project created',
  'project.renamed': 'Project renamed',
  'project.deleted': 'Project deleted',
  'service_key.created': 'Service key created',
  'service_key.revoked': 'Service key revoked',
  'project_token.derived': 'Project token derived',
  'project_token.rotated': 'Project token rotated',
  'project_token.revoked': 'Project token revoked',
  'api_key.created': 'API key created',
  'api_key.rotated': 'API key rotated',
  'api_key.revoked': 'API key revoked',
  'api_key.handed_over': 'API key handed over',
  'oauth_client.registered': 'AI client registered',
  'oauth_client.secret_rotated': 'Organisation client secret replaced',
  'oauth_client.deleted': 'Organisation client deleted',
  'consent.approved': 'AI client connected (consent approved)',
  'consent.denied': 'Consent denied',
  'grant.id_jag_exchanged': 'AI client connected through the identity provider (ID-JAG)',
  'grant.revoked': 'AI client disconnected',
  'refresh_token.reuse_detected': 'Refresh token used twice',
  'client_policy.updated': 'AI client policy changed',
  'member.added': 'Member added',
  'member.role_changed': 'Role changed',
  'member.removed': 'Member removed',
  'invitation.created': 'Invitation created',
  'invitation.withdrawn': 'Invitation withdrawn',
  'invitation.accepted': 'Invitation accepted',
  'password_reset.issued': 'Password-reset link issued',
  'password_reset.used': 'Password reset',
  'password.changed': 'Password changed',
  'account.email_released': 'Email address released by the operator',
  'organization.created': 'Organisation created',
  'identity_provider.updated': 'Single sign-on settings changed',
  'identity_provider.removed': 'Single sign-on disconnected',
  'identity_provider.domain_verified': 'Email domain verified',
  'identity_provider.redirect_uri_confirmed': 'Single sign-on redirect URI confirmed',
  'sso.sign_in': 'Signed in with single sign-on',
  'sso.linked': 'Account linked to single sign-on',
  'sso.account_created': 'Account created by single sign-on',
  'scim_token.created': 'SCIM token created',
  'scim_token.revoked': 'SCIM token revoked',
  'scim_token.handed_over': 'SCIM token handed over',
  'scim.user_created': 'Person provisioned (SCIM)',
  'scim.user_updated': 'Provisioned person changed (SCIM)',
  'scim.user_deactivated': 'Person deprovisioned (SCIM)',
  'scim.user_reactivated': 'Person reactivated (SCIM)',
  'scim.user_deleted': 'Provisioned person deleted (SCIM)',
  'tool.called': 'Tool called',
  'tool.denied': "Agent call refused by the organisation's policy",
  'approval.requested': 'Approval requested',
  'approval.pending': 'Approval still pending',
  'approval.consumed': 'Approved tool call run',
  'mcp.refused': 'MCP requests refused',
  'policy.updated': 'Policy changed',
  'audit_sink.created': 'Audit sink added',
  'audit_sink.deleted': 'Audit sink removed',
  'approval_webhook.updated': 'Approval webhook set',
  'approval_webhook.deleted': 'Approval webhook removed',
  'audit_records.removed': 'Audit records past retention removed',
  'audit_retention.updated': 'Audit retention changed',
  'session.reauthenticated': 'Signed in again to confirm a change',
  'session.reauthentication_failed': 'Signing in again to confirm a change failed',
  'sign_in.succeeded': 'Signed in',
  'sign_in.failed': 'Sign-in failed',
  'token.issued': 'Token issued',
  'token.refused': 'Token request refused',
  'audit.exported': 'Audit trail exported',
  'approval.approved': 'Agent call approved',
  'approval.denied': 'Agent call denied',
  'approval.expired': 'Approval expired',
  'approval.voided': 'Approval voided',
};

/** Every change an agent made through a tool: one filter for the whole family. */
export const AGENT_CHANGES = 'capability.*';

const NOT_IN_AN_ORGANISATION: readonly string[] = ['oauth_client.registered', 'password_reset.used', 'password.changed', 'account.email_released'];

/** The filter's choices, in groups. */
export const ACTION_GROUPS: { label: string; actions: { value: string; label: string }[] }[] = [
  { label: 'Projects', prefix: ['project.'] },
  { label: 'Service keys and project tokens', prefix: ['service_key.', 'project_token.'] },
  { label: 'API keys', prefix: ['api_key.'] },
  { label: 'AI clients', prefix: ['consent.', 'grant.', 'refresh_token.', 'client_policy.', 'oauth_client.'] },
  { label: 'People', prefix: ['member.', 'invitation.', 'password_reset.', 'organization.'] },
  { label: 'Single sign-on', prefix: ['identity_provider.', 'sso.'] },
  { label: 'Provisioning (SCIM)', prefix: ['scim.', 'scim_token.'] },
  { label: 'Tool calls', prefix: ['tool.', 'approval.', 'mcp.', 'policy.'] },
  { label: 'Sign-ins and tokens', prefix: ['sign_in.', 'session.', 'token.'] },
  { label: 'Audit', prefix: ['audit.'] },
].map((group) => ({
  label: group.label,
  actions: (Object.keys(ACTION_LABELS) as KnownAction[])
    .filter((a) => group.prefix.some((p) => a.startsWith(p)) && !NOT_IN_AN_ORGANISATION.includes(a))
    .map((value) => ({ value, label: ACTION_LABELS[value] })),
}));
ACTION_GROUPS.push({ label: 'Agents', actions: [{ value: AGENT_CHANGES, label: 'Any change an agent made through a tool' }] });

/** Whether `action` is one of the filter's choices. */
export function isActionChoice(action: string): boolean {
  return ACTION_GROUPS.some((g) => g.actions.some((a) => a.value === action));
}

/** The names the page resolved for the ids its events carry. */
export interface AuditNames {
  users: Map<string, { name: string; email: string }>;
  apiKeys: Map<string, string>;
  serviceKeys: Map<string, string>;
  clients: Map<string, string>;
  projects: Map<string, string>;
}

/** Who did it, in words: a person's name and email, or the credential or part of the service that acted. */
export function actorWords(event: AuditEventDto, names: AuditNames): { who: string; detail?: string } {
  const id = event.actorId ?? '';
  const meta = event.metadata;
  switch (event.actorType) {
    case 'user': {
      const user = names.users.get(id);
      return user ? { who: user.name, detail: user.email } : { who: 'A deleted account' };
    }
    case 'api_key':
      return { who: `API key ${quoted(names.apiKeys.get(id))}`.trim() };
    case 'agent_token':
      if (typeof meta.serviceKeyId === 'string') return { who: `Service key ${quoted(names.serviceKeys.get(meta.serviceKeyId))}`.trim(), detail: 'through a project token' };
      return { who: `AI client ${quoted(clientName(meta, names))}`.trim(), detail: 'through its access token' };
    case 'oauth_client':
      return { who: `AI client ${quoted(names.clients.get(id))}`.trim() };
    case 'cli':
      return { who: 'The command line' };
    case 'scim_token':
      return { who: "The identity provider's SCIM client", detail: 'through its SCIM token' };
    case 'system':
      return { who: 'The gateway', detail: 'automatically' };
    case 'anonymous':
      return { who: 'Anyone', detail: 'without signing in' };
    default:
      return { who: event.actorType };
  }
}

/** What happened, in words, with its target. */
export function actionWords(event: AuditEventDto, names: AuditNames): string {
  const m = event.metadata;
  const target = event.targetId ?? '';
  const person = (id: unknown) => (typeof id === 'string' ? (names.users.get(id)?.name ?? 'a deleted account') : 'someone');
  const serviceKey = quoted(names.serviceKeys.get(str(m.serviceKeyId)) ?? undefined);
  const role = (r: unknown) => (r === 'admin' ? 'admin' : r === 'member' ? 'member' : String(r ?? ''));
  const words = ((): string => {
    switch (event.action as KnownAction) {
      case 'project.created':
        return `Created project ${quoted(str(m.name))}`;
      case 'project.renamed':
        return `Renamed project ${quoted(str(m.previousName))} to ${quoted(str(m.name))}`;
      case 'project.deleted':
        return `Deleted project ${quoted(str(m.name))}${count(m.revokedTokens, 'token')}`;
      case 'service_key.created':
        return `Created service key ${quoted(str(m.name) || names.serviceKeys.get(target))}`;
      case 'service_key.revoked':
        return `Revoked service key ${quoted(names.serviceKeys.get(target))}${count(m.revokedTokens, 'project token')}`;
      case 'project_token.derived':
        return `Derived a project token from service key ${serviceKey}`;
      case 'project_token.rotated':
        return `Rotated a project token of service key ${serviceKey}`;
      case 'project_token.revoked':
        return `Revoked a project token of service key ${serviceKey}`;
      case 'api_key.created':
        return `Created API key ${quoted(str(m.name))}`;
      case 'api_key.rotated':
        return `Rotated API key ${quoted(str(m.name))}`;
      case 'api_key.revoked':
        return `Revoked API key ${quoted(str(m.name) || names.apiKeys.get(target))}${
          m.reason === 'member_removed' ? ` (${person(m.createdBy)}, who created it, was removed)` : m.reason === 'member_demoted' ? ` (${person(m.createdBy)}, who created it, is no longer an admin)` : ''
        }`;
      case 'api_key.handed_over':
        return `Took over API key ${quoted(str(m.name))} from ${person(m.createdBy)}`;
      case 'oauth_client.registered':
        return 'Registered an AI client';
      case 'consent.approved':
        return `Connected AI client ${quoted(clientName(m, names))}`;
      case 'consent.denied':
        return `Refused to connect AI client ${quoted(clientName(m, names))}`;
      case 'grant.id_jag_exchanged':
        return `Connected AI client ${quoted(clientName(m, names))} through the identity provider ${str(m.identityProvider)} (ID-JAG ${str(m.jti)})`;
      case 'grant.revoked':
        return `Disconnected AI client ${quoted(clientName(m, names))}${GRANT_REASONS[str(m.reason)] ?? ''}`;
      case 'refresh_token.reuse_detected':
        return `Saw a refresh token of AI client ${quoted(clientName(m, names))} used twice, and ended that connection`;
      case 'client_policy.updated':
        return `Changed which AI clients may connect${count(m.revokedGrants, 'connection')}`;
      case 'member.added':
        return `${person(target)} joined as ${role(m.role)}${m.via === 'signup' ? ', signing up from an invitation' : ''}`;
      case 'member.role_changed':
        return `Changed the role of ${person(target)} from ${role(m.from)} to ${role(m.to)}`;
      case 'member.removed':
        return `Removed ${person(target)}`;
      case 'invitation.created':
        return `Invited ${str(m.email)} as ${role(m.role)}`;
      case 'invitation.withdrawn':
        return `Withdrew the invitation of ${str(m.email)}`;
      case 'invitation.accepted':
        return `Accepted an invitation as ${role(m.role)}`;
      case 'password_reset.issued':
        return `Issued a password-reset link for ${person(target)}`;
      case 'password_reset.used':
        return 'Set a new password with a reset link';
      case 'password.changed':
        return 'Changed their password';
      case 'organization.created':
        return `Created the organisation ${quoted(str(m.name))}`;
      case 'identity_provider.updated':
        return `${m.created ? 'Connected' : 'Changed'} the single sign-on identity provider ${quoted(str(m.issuer))}`;
      case 'identity_provider.removed':
        return `Disconnected the single sign-on identity provider ${quoted(str(m.issuer))}`;
      case 'identity_provider.domain_verified':
        return `Verified the email domain ${str(m.domain)}${m.method === 'operator' ? ' (by the operator)' : ' (DNS record)'}`;
      case 'tool.called':
        return `Read with the tool ${str(m.tool)}${m.outcome === 'succeeded' ? '' : ' (failed)'}`;
      case 'tool.denied':
        return `Was denied the tool ${str(m.tool)} by policy rule ${quoted(str(m.ruleId))}`;
      case 'approval.requested':
      case 'approval.pending':
        return `Asked for approval to use the tool ${str(m.tool)}`;
      case 'approval.consumed':
        return `Used the tool ${str(m.tool)}, approved`;
      case 'mcp.refused':
        return `Had ${str(m.count)} MCP request(s) refused (${str(m.status)} ${str(m.reason).replace(/_/g, ' ')}) in the minute from ${str(m.minute).slice(11, 16)} UTC`;
      case 'token.issued':
        return `Issued an access token to AI client ${quoted(clientName(m, names))}`;
      case 'audit.exported':
        return 'Exported the audit trail as OCSF';
      case 'policy.updated':
        return `Changed the policy (version ${str(m.oldVersion)} to ${str(m.newVersion)})`;
      case 'identity_provider.redirect_uri_confirmed':
        return `Confirmed that the identity provider ${quoted(str(m.issuer))} uses this organisation's own redirect URI`;
      case 'audit_sink.created':
        return `Added the ${str(m.kind)} audit sink ${str(m.url)}`;
      case 'audit_sink.deleted':
        return `Removed the ${str(m.kind)} audit sink ${str(m.url)}`;
      case 'approval_webhook.updated':
        return `Set the approval webhook to ${str(m.url)}`;
      case 'approval_webhook.deleted':
        return `Removed the approval webhook ${str(m.url)}`;
      case 'audit_records.removed':
        return `Removed ${str(m.records)} audit record(s) older than ${str(m.retentionDays)} days, through #${str(m.throughSeq)}`;
      case 'audit_retention.updated':
        return `Set audit retention to ${m.retentionDays === null ? "the deployment's default" : `${str(m.retentionDays)} days`}`;
    }
    if (event.action.startsWith('capability.')) {
      const outcome = m.outcome === 'succeeded' ? '' : ` (refused: ${str(m.outcome).replace(/_/g, ' ')})`;
      return `Used the tool ${str(m.tool) || event.action.slice('capability.'.length)} on ${str(event.targetType) || 'data'}${outcome}`;
    }
    return event.action;
  })();
  if (!event.projectId || event.targetType === 'project') return words;
  const project = names.projects.get(event.projectId);
  return `${words}, in project ${project ? quoted(project) : 'since deleted'}`;
}

const GRANT_REASONS: Record<string, string> = {
  member_removed: ' (the person who approved it was removed)',
  project_deleted: ' (its project was deleted)',
  client_refused: ' (the organisation no longer admits it)',
  refresh_token_reuse: ' (a refresh token was used twice)',
  authorization_code_replay: ' (an authorization code was used twice)',
  revoked_by_client: ' (the client ended it)',
};

/** A user agent, shortened to browser and system ("Chrome 131 on Linux"), or its first word ("curl/8.5.0"). */
export function shortUserAgent(ua: string | null): string {
  if (!ua) return '';
  const browser = (
    [
      [/Edg\/(\d+)/, 'Edge'],
      [/OPR\/(\d+)/, 'Opera'],
      [/Firefox\/(\d+)/, 'Firefox'],
      [/(?:Headless)?Chrome\/(\d+)/, 'Chrome'],
      [/Version\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
    ] as const
  ).find(([re]) => re.test(ua));
  const os = (
    [
      [/Android/, 'Android'],
      [/iPhone|iPad/, 'iOS'],
      [/Windows/, 'Windows'],
      [/Mac OS X/, 'macOS'],
      [/CrOS/, 'ChromeOS'],
      [/Linux/, 'Linux'],
    ] as const
  ).find(([re]) => re.test(ua))?.[1];
  if (browser) return `${browser[1]} ${browser[0].exec(ua)![1]}${os ? ` on ${os}` : ''}`;
  return ua.split(' ')[0]!.slice(0, 40);
}

function clientName(meta: Record<string, unknown>, names: AuditNames): string | undefined {
  return names.clients.get(str(meta.clientId)) ?? (str(meta.clientName) || undefined);
}

function quoted(name: string | undefined): string {
  return name ? `“${name}”` : '';
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function count(n: unknown, what: string): string {
  return typeof n === 'number' && n > 0 ? ` (${n} ${what}${n === 1 ? '' : 's'} ended)` : '';
}
