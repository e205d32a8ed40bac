import { directExchange } from './mcp-exchange';

const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
const ACCEPT = 'application/json, text/event-stream';

const modernCall = (params: Record<string, unknown> = { name: 'get_task', arguments: { id: 'x' } }) => ({
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { ...params, _meta: META },
});
const modernHeaders = { accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'get_task' };
const legacyList = { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} };

describe('directExchange: which requests skip the SDK generic handler', () => {
  it('takes a 2026-07-28 tools/call whose standard headers match its body', () => {
    const exchange = directExchange(modernHeaders, modernCall());
    expect(exchange).toMatchObject({ era: 'modern', message: { id: 3, method: 'tools/call' }, classification: { era: 'modern', revision: MODERN } });
  });

  it('takes a 2026-07-28 tools/list with its version and method headers', () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };
    expect(directExchange({ 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }, body)?.era).toBe('modern');
  });

  it.each([
    ['no Mcp-Name', { ...modernHeaders, 'mcp-name': undefined }],
    ['an Mcp-Name naming another tool', { ...modernHeaders, 'mcp-name': 'list_tasks' }],
    ['an encoded Mcp-Name', { ...modernHeaders, 'mcp-name': '=?base64?Z2V0X3Rhc2s=?=' }],
    ['no Mcp-Method', { ...modernHeaders, 'mcp-method': undefined }],
    ['no MCP-Protocol-Version', { ...modernHeaders, 'mcp-protocol-version': undefined }],
    ['a repeated header', { ...modernHeaders, 'mcp-method': ['tools/call', 'tools/call'] }],
  ])('leaves to the SDK a 2026-07-28 call with %s (the SDK answers it)', (_what, headers) => {
    expect(directExchange(headers, modernCall())).toBeUndefined();
  });

  it('takes a 2025 tools/list when both media types are accepted and the version is served', () => {
    expect(directExchange({ accept: ACCEPT, 'mcp-protocol-version': '2025-11-25' }, legacyList)).toMatchObject({ era: 'legacy', message: { id: 4 } });
    expect(directExchange({ accept: ACCEPT }, legacyList)?.era).toBe('legacy');
  });

  it.each([
    ['an Accept without text/event-stream', { accept: 'application/json', 'mcp-protocol-version': '2025-11-25' }, legacyList],
    ['an unserved version', { accept: ACCEPT, 'mcp-protocol-version': '2024-11-05' }, legacyList],
    ['a batch', { accept: ACCEPT }, [legacyList]],
    ['a notification', { accept: ACCEPT }, { jsonrpc: '2.0', method: 'tools/list' }],
    ['initialize', { accept: ACCEPT }, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }],
    ['a malformed JSON-RPC message', { accept: ACCEPT }, { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
  ])('leaves to the SDK a 2025 request with %s', (_what, headers, body) => {
    expect(directExchange(headers as Record<string, string>, body)).toBeUndefined();
  });
});
