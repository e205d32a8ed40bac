/** What a person pastes to connect a client with a derived `dga_` token. */
export interface ConnectSnippets {
  /** The name the snippets give the server in the client. */
  serverName: string;
  /** Claude Code: `claude mcp add` with the token in an `Authorization` header. */
  claude: string;
  /**
   * VS Code: an `mcp.json` whose header refers to a password prompt (`inputs`), so the file holds
   * no secret and may be committed; VS Code asks for the token once and keeps it in its secret store.
   */
  vscode: string;
  /** Cursor: a `~/.cursor/mcp.json` entry whose header reads the token from an environment variable. */
  cursor: string;
  /** The environment variable the Cursor entry reads, and the shell line that sets it. */
  cursorEnvVar: string;
  cursorEnv: string;
  /** curl: one `tools/list` call with every header the endpoint needs. */
  curl: string;
}

/** The MCP revision of the curl snippet: the newest `initialize`-based one, which needs no handshake here (the endpoint is stateless). */
export const CURL_PROTOCOL_VERSION = '2025-11-25';

/**
 * Ready-to-paste snippets for connecting to `mcpUrl` (`BASE_URL/api/mcp`) with `token`. The
 * server is named after the project (`agent-gateway-<project>`), so several projects can be added
 * to one client side by side.
 */
export function connectSnippets(mcpUrl: string, token: string, projectName: string): ConnectSnippets {
  const serverName = serverNameFor(projectName);
  const authorization = `Authorization: Bearer ${token}`;
  const claude = `claude mcp add --transport http ${serverName} ${shellQuote(mcpUrl)} --header ${shellQuote(authorization)}`;
  const inputId = `${serverName}-token`;
  const vscode = JSON.stringify(
    {
      inputs: [{ type: 'promptString', id: inputId, description: `Agent Gateway project token (dga_…) for ${serverName}`, password: true }],
      servers: { [serverName]: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer \${input:${inputId}}` } } },
    },
    null,
    2,
  );
  const cursorEnvVar = `${serverName.toUpperCase().replace(/-/g, '_')}_TOKEN`;
  const cursor = JSON.stringify(
    { mcpServers: { [serverName]: { url: mcpUrl, headers: { Authorization: `Bearer \${env:${cursorEnvVar}}` } } } },
    null,
    2,
  );
  const cursorEnv = `export ${cursorEnvVar}=${shellQuote(token)}`;
  const curl = [
    `curl -X POST ${shellQuote(mcpUrl)}`,
    `-H ${shellQuote(authorization)}`,
    `-H 'Content-Type: application/json'`,
    `-H 'Accept: application/json, text/event-stream'`,
    `-H 'MCP-Protocol-Version: ${CURL_PROTOCOL_VERSION}'`,
    `-d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
  ].join(' \\\n  ');
  return { serverName, claude, vscode, cursor, cursorEnvVar, cursorEnv, curl };
}

/** `agent-gateway-<project>`: lower-case letters, digits and hyphens (what every client accepts as a server name). */
export function serverNameFor(projectName: string): string {
  const slug = projectName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug ? `agent-gateway-${slug}` : 'agent-gateway';
}

/** One POSIX shell word: single-quoted, with any single quote closed, escaped and reopened. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
