import { execFileSync } from 'node:child_process';
import { connectSnippets, serverNameFor, shellQuote } from './connect-snippets';

const TOKEN = 'dga_abcDEF123';

describe('connect snippets', () => {
  it('names the server after the project, as clients accept', () => {
    expect(serverNameFor('Website relaunch')).toBe('agent-gateway-website-relaunch');
    expect(serverNameFor('  Ünïcode & co.  ')).toBe('agent-gateway-unicode-co');
    expect(serverNameFor('日本')).toBe('agent-gateway');
    expect(serverNameFor('x'.repeat(100))).toBe(`agent-gateway-${'x'.repeat(40)}`);
  });

  it('quotes for the shell so that the shell reads back exactly the words', () => {
    for (const word of ["it's", 'a b', '$(rm -rf /)', '`x`', 'plain', "'", '']) {
      const echoed = execFileSync('sh', ['-c', `printf '%s' ${shellQuote(word) || "''"}`]).toString();
      expect(echoed).toBe(word);
    }
  });

  it('writes the claude command, the VS Code entry and the curl call with the token and URL', () => {
    const s = connectSnippets('https://gw.example.com/api/mcp', TOKEN, 'Website');
    expect(s.claude).toBe(
      `claude mcp add --transport http agent-gateway-website https://gw.example.com/api/mcp --header 'Authorization: Bearer ${TOKEN}'`,
    );
    // The VS Code file holds no secret: its header names a password prompt.
    expect(s.vscode).not.toContain(TOKEN);
    expect(JSON.parse(s.vscode)).toEqual({
      inputs: [
        {
          type: 'promptString',
          id: 'agent-gateway-website-token',
          description: 'Agent Gateway project token (dga_…) for agent-gateway-website',
          password: true,
        },
      ],
      servers: {
        'agent-gateway-website': {
          type: 'http',
          url: 'https://gw.example.com/api/mcp',
          headers: { Authorization: 'Bearer ${input:agent-gateway-website-token}' },
        },
      },
    });
    // Neither does the Cursor file: it reads an environment variable, set by the shell line.
    expect(s.cursor).not.toContain(TOKEN);
    expect(JSON.parse(s.cursor)).toEqual({
      mcpServers: {
        'agent-gateway-website': { url: 'https://gw.example.com/api/mcp', headers: { Authorization: 'Bearer ${env:AGENT_GATEWAY_WEBSITE_TOKEN}' } },
      },
    });
    expect(s.cursorEnv).toBe(`export AGENT_GATEWAY_WEBSITE_TOKEN=${TOKEN}`);
    expect(s.curl).toContain(`curl -X POST https://gw.example.com/api/mcp \\\n  -H 'Authorization: Bearer ${TOKEN}'`);
    expect(s.curl).toContain(`-H 'Accept: application/json, text/event-stream'`);
    expect(s.curl).toContain(`-H 'MCP-Protocol-Version: 2025-11-25'`);
  });
});
