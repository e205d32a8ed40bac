#!/usr/bin/env node
/**
 * What Express's per-request prototype swap costs, outside the service: one small Express
 * application (a JSON body parser and a 401 written with Express's helpers), served by a Node
 * HTTP server made as Express documents it (`http.createServer(app)`: Express replaces the
 * prototype of each request and response) and by one made with `expressShapedClasses`
 * (apps/gateway/src/gateway-express-adapter.ts: built with Express's methods in place, so the
 * swap changes nothing). Each server runs in its own process and is driven by autocannon from
 * another (scripts/bench/load.js), in alternating rounds; prints requests per second and the
 * server's CPU per request. Needs the build (`npm run build`).
 * Usage: node scripts/bench/express-micro.js [SECONDS PER RUN] [ROUNDS]
 */
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const SECONDS = Number(process.argv[2] ?? 5);
const ROUNDS = Number(process.argv[3] ?? 3);

if (process.argv[2] === '--serve') serve(process.argv[3]);
else main();

function serve(kind) {
  const http = require('node:http');
  const express = require('express');
  const { expressShapedClasses } = require(join(__dirname, '../../dist/apps/gateway/src/gateway-express-adapter.js'));
  const app = express();
  app.post('/api/mcp', express.json(), (req, res) => {
    res.status(401).set('Cache-Control', 'no-store').json({ message: 'Unauthorized', method: req.body.method });
  });
  const server = kind === 'shaped' ? http.createServer(expressShapedClasses(app), app) : http.createServer(app);
  let mark = process.cpuUsage();
  process.on('message', (message) => {
    if (message === 'mark') mark = process.cpuUsage();
    if (message === 'cpu') process.send(process.cpuUsage(mark));
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}

function once(child, predicate) {
  return new Promise((resolve) => {
    const listener = (message) => {
      if (!predicate(message)) return;
      child.off('message', listener);
      resolve(message);
    };
    child.on('message', listener);
  });
}

async function measure(kind) {
  const server = spawn(process.execPath, [__filename, '--serve', kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await once(server, (m) => m && m.port);
  const scenario = {
    url: `http://127.0.0.1:${port}`,
    connections: 20,
    duration: SECONDS,
    warmup: 1,
    method: 'POST',
    path: '/api/mcp',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  };
  const load = spawn(process.execPath, [join(__dirname, 'load.js'), JSON.stringify(scenario)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  let marked = false;
  load.stdout.on('data', (chunk) => {
    output += chunk;
    if (!marked && output.startsWith('measuring\n')) {
      marked = true;
      server.send('mark');
    }
  });
  await new Promise((resolve) => load.on('exit', resolve));
  server.send('cpu');
  const cpu = await once(server, (m) => m && typeof m.user === 'number');
  server.kill();
  const summary = JSON.parse(output.slice(output.indexOf('\n') + 1));
  return { requestsPerSecond: summary.requestsPerSecond, cpuUs: (cpu.user + cpu.system) / summary.total };
}

async function main() {
  const rows = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? ['plain', 'shaped'] : ['shaped', 'plain'];
    const result = {};
    for (const kind of order) result[kind] = await measure(kind);
    rows.push(result);
    console.log(
      `round ${round}: createServer(app) ${Math.round(result.plain.requestsPerSecond)}/s, ${result.plain.cpuUs.toFixed(0)} µs per request; ` +
        `expressShapedClasses ${Math.round(result.shaped.requestsPerSecond)}/s, ${result.shaped.cpuUs.toFixed(0)} µs per request`,
    );
  }
  const ratios = rows.map((r) => r.plain.cpuUs / r.shaped.cpuUs).sort((a, b) => a - b);
  console.log(`median CPU per request, createServer(app) ÷ expressShapedClasses: ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}× (Node ${process.version})`);
}
