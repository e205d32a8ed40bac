import { AgentTokenService } from './agent-token.service';
import type { AgentTokenLookup, LiveAgentToken } from '@app/credential-store';
import { generateToken, hashToken, TOKEN_PREFIXES } from '@app/credential-store';
import type { TokenUsageRecorder } from './token-usage.recorder';

/** A token table in memory that counts its lookups. */
function tokenTable() {
  const live = new Map<string, LiveAgentToken>();
  const lookups: string[] = [];
  const repository = {
    findLiveByHash: async (digest: string) => {
      lookups.push(digest);
      return live.get(digest) ?? null;
    },
  } as unknown as AgentTokenLookup;
  return { live, lookups, repository };
}

const usage = { record: () => undefined } as unknown as TokenUsageRecorder;

function row(id: string): LiveAgentToken {
  return {
    id,
    source: 'service_key',
    organizationId: 'org',
    projectId: 'project',
    permissions: ['tasks:read'],
    serviceKeyId: 'key',
    grantId: null,
    clientId: null,
    serviceKeyName: 'Key',
    userEmail: null,
    userId: null,
    expiresAt: null,
    lastUsedAt: null,
    policyVersion: 0,
  };
}

describe('AgentTokenService', () => {
  it('refuses a token the database refused again without asking it', async () => {
    const table = tokenTable();
    const service = new AgentTokenService(table.repository, usage);
    const dead = generateToken(TOKEN_PREFIXES.agentAccess);
    expect(await service.resolve(dead)).toBeNull();
    expect(await service.resolve(dead)).toBeNull();
    expect(table.lookups).toEqual([hashToken(dead)]);
  });

  it('looks a live token up on every request', async () => {
    const table = tokenTable();
    const service = new AgentTokenService(table.repository, usage);
    const token = generateToken(TOKEN_PREFIXES.agentAccess);
    table.live.set(hashToken(token), row('t1'));
    expect((await service.resolve(token))?.tokenId).toBe('t1');
    table.live.delete(hashToken(token)); // revoked in between
    expect(await service.resolve(token)).toBeNull();
    expect(table.lookups).toHaveLength(2);
  });

  it('does not remember a lookup that failed', async () => {
    const table = tokenTable();
    let down = true;
    const repository = {
      findLiveByHash: async (digest: string) => {
        if (down) throw new Error('database unavailable');
        return table.repository.findLiveByHash(digest);
      },
    } as unknown as AgentTokenLookup;
    const service = new AgentTokenService(repository, usage);
    const token = generateToken(TOKEN_PREFIXES.agentAccess);
    table.live.set(hashToken(token), row('t2'));
    await expect(service.resolve(token)).rejects.toThrow('database unavailable');
    down = false;
    expect((await service.resolve(token))?.tokenId).toBe('t2');
  });

  it('never looks up a malformed token', async () => {
    const table = tokenTable();
    const service = new AgentTokenService(table.repository, usage);
    expect(await service.resolve('dga_not-a-real-token')).toBeNull();
    expect(table.lookups).toEqual([]);
  });
});
