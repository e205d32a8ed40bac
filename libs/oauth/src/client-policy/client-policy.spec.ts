import { admitsClient, ANY_CLIENT, canonicalHost, ClientPolicy } from './client-policy';

describe('client policy', () => {
  const listed: ClientPolicy = { mode: 'listed', allowedHosts: ['claude.ai', '127.0.0.1:8443'], allowRegisteredClients: false };

  it('admits every client under "any"', () => {
    expect(admitsClient(ANY_CLIENT, 'https://anything.example/client.json')).toBe(true);
    expect(admitsClient(ANY_CLIENT, '6f1c1d8e-9a43-4a4e-9f59-7a3d3c1f4b10')).toBe(true);
  });

  it('admits metadata-document clients by the exact host of their client_id URL', () => {
    expect(admitsClient(listed, 'https://claude.ai/oauth/client.json')).toBe(true);
    expect(admitsClient(listed, 'https://evil.claude.ai/oauth/client.json')).toBe(false);
    expect(admitsClient(listed, 'https://claude.ai.evil.example/client.json')).toBe(false);
    expect(admitsClient(listed, 'http://127.0.0.1:8443/client.json')).toBe(true);
    expect(admitsClient(listed, 'http://127.0.0.1:8444/client.json')).toBe(false);
  });

  it('admits registered clients as one class', () => {
    expect(admitsClient(listed, '6f1c1d8e-9a43-4a4e-9f59-7a3d3c1f4b10')).toBe(false);
    expect(admitsClient({ ...listed, allowRegisteredClients: true }, '6f1c1d8e-9a43-4a4e-9f59-7a3d3c1f4b10')).toBe(true);
  });

  it('reads an administrator\'s host in canonical form, or refuses it', () => {
    expect(canonicalHost(' Claude.AI ')).toBe('claude.ai');
    expect(canonicalHost('claude.ai:443')).toBe('claude.ai');
    expect(canonicalHost('localhost:8443')).toBe('localhost:8443');
    for (const bad of ['', 'https://claude.ai', 'claude.ai/path', '*.claude.ai', 'user@claude.ai', 'claude .ai', 'claude.ai?x', 'a\\b']) {
      expect(canonicalHost(bad)).toBeNull();
    }
  });
});
