import type { AuditEventDto } from '@app/audit';
import { ACTION_GROUPS, actionWords, actorWords, AuditNames, isActionChoice, shortUserAgent } from './audit-words';

const names: AuditNames = {
  users: new Map([['u1', { name: 'Grace Hopper', email: 'grace@example.com' }]]),
  apiKeys: new Map([['k1', 'deploy bot']]),
  serviceKeys: new Map([['s1', 'ci machine']]),
  clients: new Map([['c1', 'Claude']]),
  projects: new Map([['p1', 'Website']]),
};

function event(fields: Partial<AuditEventDto>): AuditEventDto {
  return {
    id: 'e1',
    organizationId: 'o1',
    projectId: null,
    actorType: 'user',
    actorId: 'u1',
    action: 'project.created',
    targetType: null,
    targetId: null,
    metadata: {},
    ip: null,
    userAgent: null,
    createdAt: '2026-11-23T18:00:00.000Z',
    ...fields,
  };
}

describe('the audit log in words', () => {
  it('shortens user agents to browser and system, or their first word', () => {
    expect(shortUserAgent('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36')).toBe('Chrome 131 on Linux');
    expect(shortUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0')).toBe('Edge 131 on Windows');
    expect(shortUserAgent('Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:133.0) Gecko/20100101 Firefox/133.0')).toBe('Firefox 133 on macOS');
    expect(shortUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1')).toBe('Safari 18 on iOS');
    expect(shortUserAgent('curl/8.5.0')).toBe('curl/8.5.0');
    expect(shortUserAgent(null)).toBe('');
  });

  it('names who acted: a person, a key, a service key through its token, an AI client, the gateway', () => {
    expect(actorWords(event({}), names)).toEqual({ who: 'Grace Hopper', detail: 'grace@example.com' });
    expect(actorWords(event({ actorId: 'gone' }), names)).toEqual({ who: 'A deleted account' });
    expect(actorWords(event({ actorType: 'api_key', actorId: 'k1' }), names)).toEqual({ who: 'API key “deploy bot”' });
    expect(actorWords(event({ actorType: 'agent_token', actorId: 't1', metadata: { serviceKeyId: 's1' } }), names).who).toBe('Service key “ci machine”');
    expect(actorWords(event({ actorType: 'agent_token', actorId: 't1', metadata: { grantId: 'g1', clientId: 'c1' } }), names).who).toBe('AI client “Claude”');
    expect(actorWords(event({ actorType: 'system', actorId: null }), names).who).toBe('The gateway');
  });

  it('says what happened with its target and project', () => {
    expect(actionWords(event({ action: 'member.role_changed', targetType: 'user', targetId: 'u1', metadata: { from: 'member', to: 'admin' } }), names)).toBe(
      'Changed the role of Grace Hopper from member to admin',
    );
    expect(actionWords(event({ action: 'grant.revoked', projectId: 'p1', metadata: { clientId: 'c1', reason: 'member_removed' } }), names)).toBe(
      'Disconnected AI client “Claude” (the person who approved it was removed), in project “Website”',
    );
    expect(actionWords(event({ action: 'capability.delete_task', projectId: 'p2', targetType: 'task', metadata: { tool: 'delete_task', outcome: 'not_found' } }), names)).toBe(
      'Used the tool delete_task on task (refused: not found), in project since deleted',
    );
    expect(actionWords(event({ action: 'project.renamed', targetType: 'project', projectId: 'p1', metadata: { previousName: 'Site', name: 'Website' } }), names)).toBe(
      'Renamed project “Site” to “Website”',
    );
  });

  it('offers every organisation action as a filter, and the family of agent changes', () => {
    const offered = ACTION_GROUPS.flatMap((g) => g.actions.map((a) => a.value));
    expect(offered).toContain('member.removed');
    expect(offered).toContain('capability.*');
    expect(offered).not.toContain('password_reset.used');
    expect(isActionChoice('member.removed')).toBe(true);
    expect(isActionChoice('capability.delete_task')).toBe(false);
  });
});
