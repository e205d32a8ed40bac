#!/usr/bin/env node
/**
 * In one process, no network: the cost of serving one MCP message through the SDK's generic
 * handler (`createMcpHandler` + `toNodeHandler`, as the endpoint did for every request) against
 * the gateway's direct exchange (libs/mcp/src/mcp-exchange.ts), for `tools/list` and
 * `tools/call` in both protocol generations, with the same small SDK `Server` per request.
 * Needs the build (`npm run build`). Usage: node scripts/bench/exchange-micro.js [ITERATIONS]
 */
const { PassThrough } = require('node:stream');
const { join } = require('node:path');
const { createMcpHandler, Server } = require('@modelcontextprotocol/server');
const { toNodeHandler } = require('@modelcontextprotocol/node');
const { directExchange, serveDirect } = require(join(__dirname, '../../dist/libs/mcp/src/mcp-exchange.js'));

const N = Number(process.argv[2] ?? 3000);
const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26'];
const tools = [{ name: 'get_task', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false } }];
const task = { task: { id: 'b3c1', title: 'A task', status: 'todo' } };

function createServer(era) {
  const server = new Server({ name: 'agent-gateway', version: '0.1.0' }, { capabilities: { tools: { listChanged: false } }, supportedProtocolVersions: era === 'modern' ? [...LEGACY, MODERN] : LEGACY });
  server.setRequestHandler('tools/list', () => ({ tools }));
  server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: JSON.stringify(task) }], structuredContent: task }));
  return server;
}
const nodeHandler = toNodeHandler(createMcpHandler((ctx) => createServer(ctx.era), { legacy: 'stateless', onerror: () => {} }));
const authInfo = { token: 't', clientId: 'c', scopes: [], extra: {} };

function message(generation, method) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost' };
  const params = method === 'tools/call' ? { name: 'get_task', arguments: { id: 'b3c1' } } : {};
  if (generation === 'modern') {
    Object.assign(headers, { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(params.name ? { 'mcp-name': params.name } : {}) });
    params._meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
  } else {
    headers['mcp-protocol-version'] = LEGACY[0];
  }
  return { headers, body: { jsonrpc: '2.0', id: 1, method, params } };
}

/** A Node request/response pair good enough for both paths (the body is already parsed). */
function pair(headers) {
  const req = new PassThrough();
  Object.assign(req, { method: 'POST', url: '/api/mcp', headers, auth: authInfo });
  req.end();
  let out = '';
  const done = new Promise((resolve) => {
    const res = new PassThrough();
    Object.assign(res, {
      statusCode: 200,
      headersSent: false,
      writeHead(status) {
        this.statusCode = status;
        this.headersSent = true;
        return this;
      },
      setHeader() {},
      write(chunk) {
        out += Buffer.from(chunk).toString();
        return true;
      },
      end(chunk) {
        if (chunk) out += Buffer.from(chunk).toString();
        resolve(out);
        return this;
      },
    });
    pair.res = res;
  });
  return { req, res: pair.res, done };
}

async function generic(m) {
  const { req, res, done } = pair(m.headers);
  await nodeHandler(req, res, m.body);
  return done;
}
async function direct(m) {
  const exchange = directExchange(m.headers, m.body);
  if (!exchange) throw new Error('not a direct exchange');
  const { res, done } = pair(m.headers);
  await serveDirect(exchange, createServer(exchange.era), authInfo, res);
  return done;
}

async function time(fn, m) {
  for (let i = 0; i < 300; i++) await fn(m);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await fn(m);
  return Number(process.hrtime.bigint() - t0) / N / 1000;
}

(async () => {
  const lines = ['| message | SDK generic handler µs | direct exchange µs | saved |', '|---|---:|---:|---:|'];
  for (const generation of ['legacy', 'modern']) {
    for (const method of ['tools/list', 'tools/call']) {
      const m = message(generation, method);
      const [a, b] = [await generic(m), await direct(m)];
      const data = (s) => (s.startsWith('event:') ? s.split('\n').find((l) => l.startsWith('data: ')).slice(6) : s);
      if (data(a) !== data(b)) throw new Error(`different answers for ${generation} ${method}:\n${a}\n${b}`);
      const g = await time(generic, m);
      const d = await time(direct, m);
      lines.push(`| ${method} (${generation === 'modern' ? MODERN : LEGACY[0]}) | ${g.toFixed(0)} | ${d.toFixed(0)} | ${(g / d).toFixed(1)}× |`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n\n${N} iterations each, Node ${process.version}, load average ${require('node:os').loadavg().map((n) => n.toFixed(1)).join(' / ')}.\n`);
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
