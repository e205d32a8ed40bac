#!/usr/bin/env node
/**
 * The benchmark's floor: the least any gateway must do for an authenticated MCP call, in a plain
 * `node:http` server on the same PostgreSQL and the same seeded data as the gateway. Per request it
 * reads and parses the JSON-RPC body, hashes the bearer token with SHA-256 and runs one indexed
 * query (token → project → task for `get_task`; token → project for `tools/list`; an
 * `INSERT … SELECT` through the token for `create_task`), then answers a JSON-RPC result.
 * No SDK, no framework, no validation beyond what the query needs.
 *
 * Usage: node floor-server.js PORT DATABASE_URL   (prints {"port": N} once listening)
 */
const { createServer } = require('node:http');
const { createHash } = require('node:crypto');
const { Pool } = require('pg');

const port = Number(process.argv[2] ?? 0);
const pool = new Pool({ connectionString: process.argv[3], max: 10 });

/** The live token's project, as the gateway's lookup reads it (unique index on token_hash). */
const TOKEN = `agent_tokens a JOIN projects p ON p.id = a.project_id AND p.deleted_at IS NULL
  WHERE a.token_hash = $1 AND a.revoked_at IS NULL AND (a.expires_at IS NULL OR a.expires_at > now())`;
const TASK_COLUMNS = `t.id, t.project_id AS "projectId", t.title, t.description, t.status,
  t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;
const GET_TASK = `SELECT ${TASK_COLUMNS} FROM ${TOKEN.replace('WHERE', 'LEFT JOIN tasks t ON t.project_id = a.project_id AND t.id = $2 WHERE')}`;
const PROJECT = `SELECT p.id, p.name FROM ${TOKEN}`;
/** What the floor writes as a new task's description, so the bench can tell its tasks from the gateway's. */
const FLOOR_TASK = 'created by the floor server';
const CREATE_TASK = `INSERT INTO tasks AS t (project_id, title, description)
  SELECT a.project_id, $2, $3 FROM ${TOKEN} RETURNING ${TASK_COLUMNS}`;
const TOOLS = [
  { name: 'get_task', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
  { name: 'create_task', inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
];

const toolResult = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });

async function answer(message, tokenHash) {
  const { method, params } = message;
  if (method === 'tools/list') {
    const { rows } = await pool.query(PROJECT, [tokenHash]);
    return rows.length ? { tools: TOOLS } : undefined;
  }
  if (method === 'tools/call' && params?.name === 'get_task') {
    const { rows } = await pool.query(GET_TASK, [tokenHash, params.arguments?.id]);
    if (!rows.length) return undefined;
    return rows[0].id ? toolResult({ task: rows[0] }) : { content: [{ type: 'text', text: 'Task not found' }], isError: true };
  }
  if (method === 'tools/call' && params?.name === 'create_task') {
    const { rows } = await pool.query(CREATE_TASK, [tokenHash, params.arguments?.title, params.arguments?.description ?? FLOOR_TASK]);
    return rows.length ? toolResult({ task: rows[0] }) : undefined;
  }
  return null;
}

function send(res, status, body) {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    if (!bearer) return send(res, 401, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized' } });
    try {
      const result = await answer(message, createHash('sha256').update(bearer[1]).digest('hex'));
      if (result === undefined) return send(res, 401, { jsonrpc: '2.0', id: message.id ?? null, error: { code: -32001, message: 'Unauthorized' } });
      if (result === null) return send(res, 400, { jsonrpc: '2.0', id: message.id ?? null, error: { code: -32601, message: 'Method not found' } });
      send(res, 200, { jsonrpc: '2.0', id: message.id, result });
    } catch (error) {
      send(res, 500, { jsonrpc: '2.0', id: message.id ?? null, error: { code: -32603, message: error.message } });
    }
  });
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
const stop = () => server.close(() => pool.end().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
