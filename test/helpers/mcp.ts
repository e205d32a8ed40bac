import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const LEGACY_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;
export const MODERN_VERSION = '2026-07-28';

/** One HTTP exchange the official client made, as a user would inspect it. */
export interface Exchange {
  method: string;
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  status: number;
  responseHeaders: Record<string, string>;
}

export interface ConnectedClient {
  client: Client;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/**
 * The official MCP client over the real port. `version` picks the generation: a 2025 revision
 * runs the `initialize` handshake offering that revision; `2026-07-28` pins the stateless
 * generation (`server/discover`). `headers` carries the credential.
 */
export async function connectClient(baseUrl: string, version: string, headers: Record<string, string>): Promise<ConnectedClient> {
  const exchanges: Exchange[] = [];
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const requestHeaders: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => (requestHeaders[key] = value));
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, key) => (responseHeaders[key] = value));
    exchanges.push({
      method: init?.method ?? 'GET',
      requestHeaders,
      requestBody: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      status: response.status,
      responseHeaders,
    });
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
    requestInit: { headers },
    fetch: recordingFetch,
    onInsufficientScope: 'throw',
  });
  const modern = version === MODERN_VERSION;
  const client = new Client(
    { name: 'agent-gateway-e2e', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : { supportedProtocolVersions: [version] },
  );
  await client.connect(transport);
  return { client, exchanges, close: () => client.close() };
}
