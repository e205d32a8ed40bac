#!/usr/bin/env node
/**
 * The benchmark's reference: a bare MCP SDK v2 handler in a plain Node HTTP server, with the same
 * tools as the gateway kept in memory and no authentication. Usage: node reference-server.js PORT
 */
const { createServer } = require('node:http');
const { randomUUID } = require('node:crypto');
const { createMcpHandler, McpServer } = require('@modelcontextprotocol/server');
const { toNodeHandler } = require('@modelcontextprotocol/node');
const { z } = require('zod');

const project = { id: randomUUID(), name: 'Reference project', organization: { id: randomUUID(), name: 'Reference org' } };
const tasks = new Map();
function addTask(title, description) {
  const now = new Date().toISOString();
  const task = { id: randomUUID(), title, description: description ?? null, status: 'todo', createdAt: now, updatedAt: now };
  tasks.set(task.id, task);
  return task;
}
for (let i = 0; i < 50; i++) addTask(`Seeded task ${i}`, 'seed');

const result = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
const notFound = () => ({ content: [{ type: 'text', text: 'Task not found' }], isError: true });

function factory() {
  const server = new McpServer({ name: 'reference', version: '1.0.0' });
  server.registerTool('get_project', { description: 'The bound project', inputSchema: z.object({}).strict() }, async () =>
    result({ ...project, permissions: ['project:read', 'tasks:read', 'tasks:write', 'tasks:delete'] }),
  );
  server.registerTool(
    'list_tasks',
    {
      description: 'List tasks',
      inputSchema: z.object({ status: z.enum(['todo', 'in_progress', 'done']).optional(), limit: z.number().int().min(1).max(100).optional(), cursor: z.string().optional() }).strict(),
    },
    async ({ status, limit }) => result({ tasks: [...tasks.values()].filter((t) => !status || t.status === status).slice(0, limit ?? 20), nextCursor: null }),
  );
  server.registerTool('get_task', { description: 'One task', inputSchema: z.object({ id: z.string() }).strict() }, async ({ id }) => {
    const task = tasks.get(id);
    return task ? result(task) : notFound();
  });
  server.registerTool(
    'create_task',
    { description: 'Create a task', inputSchema: z.object({ title: z.string().min(1).max(200), description: z.string().max(10000).optional() }).strict() },
    async ({ title, description }) => result(addTask(title, description)),
  );
  server.registerTool(
    'update_task',
    {
      description: 'Update a task',
      inputSchema: z.object({ id: z.string(), title: z.string().min(1).max(200).optional(), description: z.string().max(10000).optional(), status: z.enum(['todo', 'in_progress', 'done']).optional() }).strict(),
    },
    async ({ id, ...changes }) => {
      const task = tasks.get(id);
      if (!task) return notFound();
      Object.assign(task, changes, { updatedAt: new Date().toISOString() });
      return result(task);
    },
  );
  server.registerTool('delete_task', { description: 'Delete a task', inputSchema: z.object({ id: z.string() }).strict() }, async ({ id }) =>
    tasks.delete(id) ? result({ deleted: true, id }) : notFound(),
  );
  return server;
}

const handler = toNodeHandler(createMcpHandler(factory));
const port = Number(process.argv[2] ?? 0);
const server = createServer((req, res) => {
  if (req.url === '/seed') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ taskId: tasks.keys().next().value }));
    return;
  }
  handler(req, res);
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
