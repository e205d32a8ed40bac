import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { AUDIT_ACTIONS } from '../audit.service';
import { ocsfEventOf } from '../ocsf/ocsf-events';
import { chainHash, exportedEvent, GENESIS_HASH } from './chain-hash';

const ACTORS = ['user', 'agent_token', 'api_key', 'scim_token', 'cli', 'system', 'oauth_client', 'anonymous'];
const METADATA: Record<string, unknown>[] = [
  {},
  { tool: 'get_task', outcome: 'succeeded', readOnly: true, argumentsSha256: 'ab'.repeat(32), serviceKeyId: randomUUID() },
  { tool: 'delete_task', outcome: 'not_found', grantId: randomUUID(), clientId: 'client-é', userId: randomUUID(), clientName: 'Client “quoted” 😀' },
  { count: 17, reason: 'rate_limited', credentialKind: 'project_token', credentialId: randomUUID(), organizations: [randomUUID(), 'b'] },
  { ruleId: 'r-1', policyVersion: 3, activity: 'delete', operation: 'POST /x', nested: { '10': 1, '9': [0.1, -0, 1e21, null], ü: 'line\nbreak\u2028' } },
];

/** An event of every action, from every kind of actor, as built when written and as the database gives it back. */
function events(): Record<string, unknown>[] {
  const all: Record<string, unknown>[] = [];
  const actions = [...AUDIT_ACTIONS, 'capability.create_task', 'capability.delete_task'];
  actions.forEach((action, i) => {
    const event = ocsfEventOf({
      id: randomUUID(),
      time: 1764000025000 + i,
      organizationId: i % 5 === 0 ? null : randomUUID(),
      projectId: i % 2 === 0 ? randomUUID() : null,
      actorType: ACTORS[i % ACTORS.length],
      actorId: i % 7 === 0 ? null : randomUUID(),
      action,
      targetType: i % 3 === 0 ? null : 'task',
      targetId: i % 3 === 0 ? null : randomUUID(),
      metadata: METADATA[i % METADATA.length],
      ip: i % 4 === 0 ? null : i % 4 === 1 ? '::ffff:10.0.0.1' : '2001:db8::1',
      userAgent: i % 2 === 0 ? 'agent/1.0 (ü)' : null,
      actorEmail: 'person@example.test',
      actorName: 'Build key “ci”',
      traceId: i % 2 === 0 ? 'ab'.repeat(16) : null,
    });
    all.push(event, JSON.parse(JSON.stringify(event)) as Record<string, unknown>);
  });
  return all;
}

describe('chainHash', () => {
  it('is SHA-256 of the canonicalize package’s text of the exported event, for an event of every action and actor', () => {
    let prevHash = GENESIS_HASH;
    events().forEach((event, i) => {
      const seq = i + 1;
      const text = canonicalize(exportedEvent(event, { seq, prevHash }));
      const hash = chainHash(event, seq, prevHash);
      expect([event.metadata, hash]).toEqual([event.metadata, createHash('sha256').update(text ?? '').digest('hex')]);
      prevHash = hash;
    });
  });
});
