#!/usr/bin/env node
/**
 * `npm run bench`: measures what the gateway adds to the cost of an MCP call.
 *
 * Starts a throwaway PostgreSQL and the built service, seeds an organisation, a project, tokens
 * and tasks through the public API, and drives each scenario with autocannon from a second
 * process. In the same run, in alternating rounds, two other servers answer the same requests: a
 * bare MCP SDK handler in a plain Node HTTP server (same tools, in memory, no authentication) and
 * the floor (scripts/bench/floor-server.js: body parse, token hash, one indexed query on the same
 * database). Prints a markdown table and writes bench-results/latest.json. Options: --duration S
 * (default 10), --connections N (default 20), --rounds N (default 3), --only TEXT (only the MCP
 * scenarios whose name contains TEXT; `--only pickers` and `--only audit` run the large-organisation
 * sections alone, scripts/bench/scale.js), --profile DIR (a CPU profile of the service), --baseline DIR
 * (another build of the service, DIR/dist/apps/gateway/src/main.js, measured in the same rounds on
 * the same database: a before/after comparison that the machine's load cannot skew; with
 * --baseline-node-flags "FLAGS", Node options for the baseline alone), --policy-rules N (the
 * seeded organisation gets a policy of N rules that every measured call misses, docs/policy.md;
 * a baseline build without policies ignores it).
 *
 * `--soak` runs the soak instead (scripts/bench/soak.js): mixed load for a duration, 5xx and RSS
 * per minute.
 */
const { spawn, execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');
const { findPostgresBin, freePort, startPostgres, stopPostgres } = require('./lib/postgres');
const { oauthRefreshTokens } = require('./bench/oauth-flow');
const { auditFilters, pickerPages } = require('./bench/scale');

const root = join(__dirname, '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const DURATION = option('duration', 10);
const CONNECTIONS = option('connections', 20);
const WARMUP = Math.min(3, DURATION);
/** Alternating rounds per scenario; each target's figure is the median of its rounds. */
const ROUNDS = Math.max(1, option('rounds', 3));
const onlyIndex = args.indexOf('--only');
/** `--only TEXT`: only the MCP scenarios whose name contains TEXT (say, a protocol version). */
const ONLY = onlyIndex >= 0 ? args[onlyIndex + 1] : undefined;
/** The targets of an authenticated MCP call (issue: performance). */
const TARGET = { sdk: 2, floor: 0.45, p99: 25 };
const profileIndex = args.indexOf('--profile');
/** `--profile DIR`: the service writes a V8 CPU profile into DIR when it stops. */
const profileDir = profileIndex >= 0 ? args[profileIndex + 1] : undefined;
const profileFlags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
const baselineIndex = args.indexOf('--baseline');
/** `--baseline DIR`: a second build of the service (say, main's), measured beside this one. */
const baselineDir = baselineIndex >= 0 ? args[baselineIndex + 1] : undefined;
const baselineFlagsIndex = args.indexOf('--baseline-node-flags');
/** `--baseline-node-flags "FLAGS"`: Node options for the baseline only (say, the same build with another GC setting). */
const baselineFlags = baselineFlagsIndex >= 0 ? args[baselineFlagsIndex + 1].split(' ').filter(Boolean) : [];
/** The service's measured runs on the monotonic clock (µs), so a profile can be read for them alone. */
const measuredWindows = [];
/** `--policy-rules N`: a policy of N rules, none of which matches the measured calls. */
const POLICY_RULES = option('policy-rules', 0);
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';

const children = [];
function startProcess(command, argv, env) {
  const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  // Read standard output as a log collector would (the service's request log goes there).
  child.stdout.resume();
  const name = argv.find((a) => !a.startsWith('-')) ?? command;
  child.stderr.on('data', (d) => process.stderr.write(`[${name.split('/').pop()}] ${d}`));
  return child;
}
function cleanup() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
}
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

async function waitFor(url, timeoutMs = 60000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

/** Resolves once a child prints its `{"port": N}` line (the SDK reference and the floor do). */
function waitForListening(child, timeoutMs = 30000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a bench server did not start listening')), timeoutMs);
    child.stdout.once('data', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => reject(new Error(`a bench server exited (${code})`)));
  });
}

/** The run of median throughput among `runs` (its p99 and RSS travel with it). */
function median(runs) {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const mid = sorted[Math.floor((sorted.length - 1) / 2)];
  const middle = (key) => {
    const values = runs.map((r) => r[key]).filter((n) => Number.isFinite(n)).sort((a, b) => a - b);
    return values.length ? values[Math.floor((values.length - 1) / 2)] : undefined;
  };
  return {
    ...mid,
    cpuUsPerRequest: middle('cpuUsPerRequest'),
    systemCpuUsPerRequest: middle('systemCpuUsPerRequest'),
    databaseCpuUsPerRequest: middle('databaseCpuUsPerRequest'),
    rounds: runs.map((r) => ({ requestsPerSecond: r.requestsPerSecond, latencyP99: r.latencyP99, cpuUsPerRequest: r.cpuUsPerRequest })),
  };
}

/** The 1, 5 and 15 minute load averages, to read the figures against. */
function loadAverage() {
  return require('node:os').loadavg().map((n) => Number(n.toFixed(2)));
}

/** Peak resident set size of a process while `fn` runs, sampled every 100 ms from /proc. */
async function withPeakRss(pid, fn) {
  let peak = 0;
  const sample = () => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {}
  };
  sample();
  const timer = setInterval(sample, 100);
  try {
    const result = await fn();
    sample();
    return { result, peakRss: peak };
  } finally {
    clearInterval(timer);
  }
}

/** CPU time (user + system, and system alone) a process has used so far, in microseconds, from /proc. */
function cpuTimeUs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const system = (Number(fields[12]) * 1e6) / CLOCK_TICKS;
    return { total: (Number(fields[11]) * 1e6) / CLOCK_TICKS + system, system };
  } catch {
    return { total: NaN, system: NaN };
  }
}
/**
 * CPU time used so far by each of the database server's processes: the postmaster (first line of
 * postmaster.pid) and its children (one backend per connection), by pid.
 */
let databasePid;
function databaseCpuUs() {
  const byPid = new Map();
  if (!databasePid) return byPid;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (entry !== databasePid && fields[1] !== databasePid) continue;
      byPid.set(entry, ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS);
    } catch {}
  }
  return byPid;
}
/** CPU the database spent between two readings (a backend that ended meanwhile is left out; a new one counts whole). */
function databaseCpuSince(start) {
  if (!databasePid) return NaN;
  let spent = 0;
  for (const [pid, now] of databaseCpuUs()) spent += now - (start.get(pid) ?? 0);
  return spent;
}
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * One scenario run by load.js. With `pid`, also the CPU time that process spent per answered
 * request during the measured run: a figure far less sensitive than req/s to other load on the
 * machine (a server waiting for a core spends no CPU meanwhile).
 */
function load(scenario, pid) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, 'bench', 'load.js'), JSON.stringify(scenario)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    let cpuAtStart;
    let databaseAtStart;
    let windowStart;
    child.stdout.on('data', (d) => {
      out += d;
      if (cpuAtStart === undefined && out.includes('measuring\n') && pid) {
        cpuAtStart = cpuTimeUs(pid);
        databaseAtStart = databaseCpuUs();
        windowStart = monotonicUs();
      }
    });
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`load exited ${code}`));
      if (windowStart !== undefined) measuredWindows.push({ pid, label: scenario.label, start: windowStart, end: monotonicUs() });
      const result = JSON.parse(out.slice(out.indexOf('measuring\n') + 'measuring\n'.length));
      if (cpuAtStart !== undefined) {
        const cpuAtEnd = cpuTimeUs(pid);
        result.cpuUsPerRequest = (cpuAtEnd.total - cpuAtStart.total) / Math.max(1, result.total);
        result.systemCpuUsPerRequest = (cpuAtEnd.system - cpuAtStart.system) / Math.max(1, result.total);
        result.databaseCpuUsPerRequest = databaseCpuSince(databaseAtStart) / Math.max(1, result.total);
      }
      resolve(result);
    });
  });
}

// ---- JSON-RPC bodies and headers for both protocol generations ----
const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
function mcpRequest(generation, method, params, extraHeaders = {}) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extraHeaders };
  let body;
  if (generation === 'modern') {
    headers['mcp-protocol-version'] = MODERN;
    headers['mcp-method'] = method;
    if (method === 'tools/call') headers['mcp-name'] = params.name;
    body = { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } };
  } else {
    headers['mcp-protocol-version'] = LEGACY;
    body = { jsonrpc: '2.0', id: 1, method, params };
  }
  return { method: 'POST', headers, body: JSON.stringify(body) };
}

async function callJson(base, path, { method = 'GET', token, body, form } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let payload;
  if (form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(form).toString();
  } else if (body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body: payload, redirect: 'manual' });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 300)}`);
  return { status: res.status, json, headers: res.headers, text };
}

/** Reads a tool result from either an SSE (2025) or a JSON (2026) MCP answer. */
function toolResult(text) {
  const data = text.includes('data: ') ? text.split('\n').find((l) => l.startsWith('data: ')).slice(6) : text;
  const msg = JSON.parse(data);
  if (msg.error) throw new Error(`MCP error: ${JSON.stringify(msg.error)}`);
  return msg.result.structuredContent ?? JSON.parse(msg.result.content[0].text);
}

async function mcpCall(base, path, token, generation, name, args) {
  const r = mcpRequest(generation, 'tools/call', { name, arguments: args }, token ? { authorization: `Bearer ${token}` } : {});
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: r.headers, body: r.body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`tools/call ${name} → ${res.status}: ${text.slice(0, 300)}`);
  return toolResult(text);
}

// ---- seeding ----
async function seedGateway(base) {
  const email = `bench-${randomBytes(4).toString('hex')}@example.test`;
  const password = `bench-password-${randomBytes(8).toString('hex')}`;
  const signup = await callJson(base, '/api/auth/signup', {
    method: 'POST',
    body: { email, password, name: 'Bench', organizationName: 'Bench org' },
  });
  const session = signup.json.accessToken;
  const orgId = signup.json.organization.id;
  const project = (await callJson(base, `/api/organizations/${orgId}/projects`, { method: 'POST', token: session, body: { name: 'Bench project' } })).json;
  const key = (await callJson(base, `/api/organizations/${orgId}/agent-service-keys`, { method: 'POST', token: session, body: { name: 'bench' } })).json;
  const derived = (await callJson(base, `/api/organizations/${orgId}/agent-service-keys/${key.id}/tokens`, { method: 'POST', token: session, body: { projectId: project.id } })).json;
  let taskId;
  for (let i = 0; i < 50; i++) {
    const task = await mcpCall(base, '/api/mcp', derived.token, 'modern', 'create_task', { title: `Seeded task ${i}`, description: 'seed' });
    taskId ??= task.id ?? task.task?.id;
  }
  return { session, email, password, orgId, projectId: project.id, keyId: key.id, token: derived.token, taskId };
}

/**
 * N rules that the measured calls (get_task and create_task with a derived token) all miss, of
 * each match field in turn, written straight into the table: what every call then pays is the
 * version check and the walk through the rules.
 */
async function seedMissingRules(pg, orgId, count) {
  const misses = [
    { tools: ['delete_task'] },
    { projects: ['00000000-0000-4000-8000-000000000000'] },
    { clients: ['https://nobody.example/client.json'] },
    { credentialKinds: ['oauth', 'id_jag'] },
    { risk: ['destructive'] },
  ];
  const rules = Array.from({ length: count }, (_, i) => ({ id: `miss-${i + 1}`, ...misses[i % misses.length], effect: 'deny' }));
  const client = new Client({ connectionString: pg.url('agent_gateway') });
  await client.connect();
  try {
    await client.query('INSERT INTO organization_policies (organization_id, version, rules) VALUES ($1, 1, $2::jsonb)', [orgId, JSON.stringify(rules)]);
  } finally {
    await client.end();
  }
}

async function main() {
  const bin = findPostgresBin();
  if (!bin) throw new Error('npm run bench needs the PostgreSQL server binaries (Debian package postgresql-15)');
  if (!existsSync(join(root, 'dist/apps/gateway/src/main.js'))) throw new Error('build first: npm run build (npm run bench does)');
  const pg = await startPostgres(bin, { shared_buffers: '256MB' });
  databasePid = readFileSync(join(pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0].trim();
  try {
    const admin = new Client({ connectionString: pg.url('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE agent_gateway');
    await admin.end();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const sessionSecret = randomBytes(32).toString('hex');
    // Production needs the key ring of stored secrets (docs/operations.md, "Configuration"); one for the run, both builds.
    const secretsKeys = `bench:${randomBytes(32).toString('base64')}`;
    const serviceEnv = async (servicePort) => ({
      NODE_ENV: 'production',
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      BASE_URL: `http://127.0.0.1:${servicePort}`,
      DATABASE_URL: pg.url('agent_gateway'),
      SESSION_SECRET: sessionSecret,
      SECRETS_KEYS: secretsKeys,
      // As in production: the request log on (one line per request at info) and metrics served.
      LOG_LEVEL: 'info',
      METRICS_PORT: String(await freePort()),
      REGISTRATION_RATE_LIMIT_PER_MINUTE: '1000',
      // The MCP request limits stay on (their counting is part of what is measured) but high
      // enough that the load never reaches them.
      MCP_RATE_LIMIT_PER_TOKEN: '10000000',
      MCP_RATE_LIMIT_PER_ORGANIZATION: '10000000',
    });
    const gateway = startProcess(process.execPath, [...profileFlags, join(root, 'dist/apps/gateway/src/main.js')], await serviceEnv(port));
    await waitFor(`${base}/health/ready`);
    let baseline;
    if (baselineDir) {
      // Started once this build has migrated the database (the baseline then finds it up to date).
      const baselinePort = await freePort();
      baseline = startProcess(process.execPath, [...baselineFlags, join(baselineDir, 'dist/apps/gateway/src/main.js')], await serviceEnv(baselinePort));
      baseline.url = `http://127.0.0.1:${baselinePort}`;
      await waitFor(`${baseline.url}/health/ready`);
    }
    const refPort = await freePort();
    const reference = startProcess(process.execPath, [join(__dirname, 'bench', 'reference-server.js'), String(refPort)], {});
    const refBase = `http://127.0.0.1:${refPort}`;
    await waitFor(`${refBase}/seed`);
    const refSeed = await (await fetch(`${refBase}/seed`)).json();
    const seed = await seedGateway(base);
    if (POLICY_RULES > 0) await seedMissingRules(pg, seed.orgId, POLICY_RULES);
    const auth = { authorization: `Bearer ${seed.token}` };

    const floorPort = await freePort();
    const floor = startProcess(process.execPath, [join(__dirname, 'bench', 'floor-server.js'), String(floorPort), pg.url('agent_gateway')], {});
    const floorBase = `http://127.0.0.1:${floorPort}`;
    await waitForListening(floor);
    const targets = {
      gateway: { pid: gateway.pid, url: base, path: '/api/mcp' },
      sdk: { pid: reference.pid, url: refBase, path: '/mcp' },
      floor: { pid: floor.pid, url: floorBase, path: '/' },
      ...(baseline ? { baseline: { pid: baseline.pid, url: baseline.url, path: '/api/mcp' } } : {}),
    };

    const rows = [];
    /** One autocannon run of `request` against one target; warm-up only in the first round. */
    async function measure(label, target, request, extra = {}, round = 0) {
      const t = targets[target];
      const { result, peakRss } = await withPeakRss(t.pid, () =>
        load({ label, url: t.url, path: request.path ?? t.path, connections: CONNECTIONS, duration: DURATION, warmup: round === 0 ? WARMUP : Math.min(1, WARMUP), ...request, ...extra }, t.pid),
      );
      const row = { label, target, round, ...result, peakRss };
      rows.push(row);
      process.stderr.write(
        `${label} [${target}${round ? ` round ${round + 1}` : ''}]: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.latencyP99} ms, ` +
          `${result.cpuUsPerRequest?.toFixed(0)} µs CPU/request (${result.systemCpuUsPerRequest?.toFixed(0)} µs system), non-2xx ${result.non2xx}\n`,
      );
      return row;
    }
    /**
     * ROUNDS alternating rounds over the targets (the order rotates each round so no target always
     * runs right after another), then the median run of each target by req/s.
     */
    async function measureRounds(label, build, names) {
      const runs = Object.fromEntries(names.map((n) => [n, []]));
      const rotating = names.filter((n) => n !== 'baseline');
      for (let round = 0; round < ROUNDS; round++) {
        for (let i = 0; i < rotating.length; i++) {
          const name = rotating[(i + round) % rotating.length];
          // The baseline runs right beside this build (before it one round, after it the next), so
          // each pair meets the same load on the machine.
          const order = name === 'gateway' && names.includes('baseline') ? (round % 2 ? ['baseline', 'gateway'] : ['gateway', 'baseline']) : [name];
          for (const n of order) runs[n].push(await measure(label, n, build(n), {}, round));
        }
      }
      const result = Object.fromEntries(names.map((n) => [n, median(runs[n])]));
      if (result.baseline) {
        // Per round, baseline ÷ this build: CPU per request and req/s of two runs side by side.
        const ratios = (key) => runs.gateway.map((g, i) => runs.baseline[i][key] / g[key]).sort((a, b) => a - b);
        const mid = (values) => values[Math.floor((values.length - 1) / 2)];
        result.baseline.pairedCpuRatio = mid(ratios('cpuUsPerRequest'));
        result.baseline.pairedRpsRatio = mid(ratios('requestsPerSecond'));
        result.baseline.pairedCpuRatios = ratios('cpuUsPerRequest');
      }
      return result;
    }

    const scenarios = [];
    const taskIdFor = (t) => (t === 'sdk' ? refSeed.taskId : seed.taskId);
    const authFor = (t) => (t === 'sdk' ? {} : auth);
    const mcpTargets = ['gateway', 'sdk', 'floor', ...(baseline ? ['baseline'] : [])];
    for (const generation of ['legacy', 'modern']) {
      const version = generation === 'legacy' ? LEGACY : MODERN;
      scenarios.push({ name: `tools/list (${version})`, build: (t) => mcpRequest(generation, 'tools/list', {}, authFor(t)) });
      scenarios.push({
        name: `tools/call get_task (${version})`,
        build: (t) => mcpRequest(generation, 'tools/call', { name: 'get_task', arguments: { id: taskIdFor(t) } }, authFor(t)),
      });
    }
    scenarios.push({ name: `tools/call create_task (${MODERN})`, build: (t) => mcpRequest('modern', 'tools/call', { name: 'create_task', arguments: { title: 'Load task' } }, authFor(t)) });

    const report = { date: new Date().toISOString(), baseline: baselineDir, duration: DURATION, connections: CONNECTIONS, rounds: ROUNDS, load: loadAverage(), node: process.version, scenarios: [] };
    let authenticatedRps;
    for (const s of scenarios.filter((x) => !ONLY || x.name.includes(ONLY))) {
      const m = await measureRounds(s.name, s.build, mcpTargets);
      const gw = m.gateway;
      const ratioSdk = gw.requestsPerSecond / m.sdk.requestsPerSecond;
      const ratioFloor = gw.requestsPerSecond / m.floor.requestsPerSecond;
      if (s.name === `tools/list (${LEGACY})`) authenticatedRps = gw.requestsPerSecond;
      const shortfall = [];
      if (ratioSdk < TARGET.sdk) shortfall.push(`${ratioSdk.toFixed(2)}× SDK < ${TARGET.sdk}×`);
      if (ratioFloor < TARGET.floor) shortfall.push(`${ratioFloor.toFixed(2)}× floor < ${TARGET.floor}×`);
      if (gw.latencyP99 > TARGET.p99) shortfall.push(`p99 ${gw.latencyP99} ms > ${TARGET.p99} ms`);
      if (gw.non2xx > 0) shortfall.push(`${gw.non2xx} non-2xx`);
      for (const other of ['sdk', 'floor']) if (m[other].non2xx > 0) shortfall.push(`${other} answered ${m[other].non2xx} non-2xx`);
      report.scenarios.push({
        name: s.name,
        gateway: gw,
        reference: m.sdk,
        floor: m.floor,
        baseline: m.baseline,
        ratio: ratioSdk,
        ratioFloor,
        target: `≥ ${TARGET.sdk}× SDK, ≥ ${TARGET.floor}× floor, p99 ≤ ${TARGET.p99} ms`,
        met: shortfall.length === 0,
        shortfall,
      });
    }

    const floodName = `flood: another organisation's get_task (${LEGACY}) during one organisation's batches of ${FLOOD_BATCH} create_task`;
    if (!ONLY || floodName.includes(ONLY)) report.scenarios.push(await floodScenario({ base, seed, gateway, name: floodName, quietP99: report.scenarios.find((x) => x.name === `tools/call get_task (${LEGACY})`)?.gateway.latencyP99 }));

    // The 401 paths: no database touch for a malformed token; one indexed lookup for a well-formed
    // unknown one the first time, none when it comes again (refused tokens are remembered); one
    // lookup for every request when each carries a new well-formed token.
    const refusing = (token) => () => mcpRequest('legacy', 'tools/list', {}, { authorization: `Bearer ${token}` });
    const refusals = [
      ['401 malformed token', refusing('dga_not-a-real-token')],
      ['401 well-formed unknown token, the same one again', refusing(wellFormedUnknown())],
      ['401 well-formed unknown token, a new one each request', () => ({ ...mcpRequest('legacy', 'tools/list', {}), chain: { kind: 'new-agent-token' } })],
    ].filter(([name]) => !ONLY || name.includes(ONLY));
    if (refusals.length && authenticatedRps === undefined) {
      // Run alone (--only 401): the authenticated figure they are read against, measured now.
      const listing = scenarios.find((x) => x.name === `tools/list (${LEGACY})`);
      authenticatedRps = (await measureRounds(listing.name, listing.build, ['gateway'])).gateway.requestsPerSecond;
    }
    for (const [name, build] of refusals) {
      const m = await measureRounds(name, build, ['gateway', ...(baseline ? ['baseline'] : [])]);
      const gw = m.gateway;
      const ratioToAuth = gw.requestsPerSecond / authenticatedRps;
      const shortfall = [];
      if (ratioToAuth < 2) shortfall.push(`${ratioToAuth.toFixed(2)}× < 2×`);
      if (gw.statusCodes?.['401']?.count !== gw.total) shortfall.push('not every answer was 401');
      report.scenarios.push({ name, gateway: gw, baseline: m.baseline, ratioToAuthenticated: ratioToAuth, target: `≥ 2× authenticated tools/list (${LEGACY}), all 401`, met: shortfall.length === 0, shortfall });
    }

    if (!ONLY) {
      // RSS flat across runs: the first scenario again, after all the others, on the same process.
      // Its peak must stay within 10% of the highest peak the earlier scenarios already needed.
      const first = scenarios[0];
      const priorPeak = Math.max(...rows.filter((r) => r.target === 'gateway').map((r) => r.peakRss));
      const again = await measure(`${first.name}, repeated`, 'gateway', first.build('gateway'));
      const flat = again.peakRss <= priorPeak * 1.1;
      report.rss = { priorPeak, repeatedRun: again.peakRss };
      report.scenarios.push({
        name: `${first.name}, repeated after the others`,
        gateway: again,
        target: `peak RSS within 10% of the earlier peak (${mb(priorPeak)})`,
        met: flat,
        shortfall: flat ? [] : [`RSS grew ${mb(again.peakRss - priorPeak)} past the earlier peak`],
      });

      const createTask = report.scenarios.find((x) => x.name.startsWith('tools/call create_task'));
      report.scenarios.push(await auditInsertCost({ seed, pg, createTask }));
      report.scenarios.push(await refreshRotation({ base, seed, measure }));
      report.scenarios.push(await cascadeRevocation({ base, seed, pg }));
    } else if ('refresh-token rotation'.includes(ONLY)) {
      report.scenarios.push(await refreshRotation({ base, seed, measure }));
    }
    // The large organisation: pickers (20,000 projects) and audit filters (2,000,000 events) against a small one.
    const scale = { base, pg, callJson, rounds: ROUNDS, duration: DURATION };
    if (!ONLY || ONLY === 'pickers') report.scenarios.push(...(await pickerPages(scale)));
    if (!ONLY || ONLY === 'audit') report.scenarios.push(...(await auditFilters(scale)));

    report.peakRss = { gateway: Math.max(...rows.filter((r) => r.target === 'gateway').map((r) => r.peakRss)) };
    mkdirSync(join(root, 'bench-results'), { recursive: true });
    writeFileSync(join(root, 'bench-results', 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    if (profileDir) {
      const windows = measuredWindows.filter((w) => w.pid === gateway.pid);
      mkdirSync(profileDir, { recursive: true });
      writeFileSync(join(profileDir, 'measured-windows.json'), `${JSON.stringify(windows, null, 2)}\n`);
    }
    process.stdout.write(`${markdown(report)}\n`);
  } finally {
    cleanup();
    await new Promise((r) => setTimeout(r, 500));
    stopPostgres(pg);
  }
}

/** The flood's batches: this many `create_task` in one 2025-03-26 JSON-RPC batch. */
const FLOOD_BATCH = 100;
/** The fairness target: the other organisation's p99 during the flood. */
const FLOOD_P99_MS = 50;

/**
 * Fairness between organisations: a second organisation (seeded like the first) calls get_task
 * on CONNECTIONS connections while the first organisation keeps 10 connections busy with batches
 * of 100 create_task each (well within its request limits). Measures the second organisation's
 * latency (the gateway's CPU as for every scenario), beside its p99 without the flood (the get_task
 * scenario of the same generation, or measured now).
 */
async function floodScenario({ base, seed, gateway, name, quietP99 }) {
  const other = await seedGateway(base);
  const getTask = mcpRequest('legacy', 'tools/call', { name: 'get_task', arguments: { id: other.taskId } }, { authorization: `Bearer ${other.token}` });
  const target = { label: name, url: base, path: '/api/mcp', connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, ...getTask };
  if (quietP99 === undefined) quietP99 = (await load({ ...target, label: `${name}, without the flood` }, gateway.pid)).latencyP99;
  const batch = Array.from({ length: FLOOD_BATCH }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'create_task', arguments: { title: `Flood ${i}` } } }));
  const flooding = {
    label: `${name}: the flood`,
    url: base,
    path: '/api/mcp',
    connections: 10,
    duration: DURATION + WARMUP + 2,
    warmup: 0,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26', authorization: `Bearer ${seed.token}` },
    body: JSON.stringify(batch),
  };
  const floodRun = load(flooding);
  // The flood under way before the measured organisation starts.
  await new Promise((r) => setTimeout(r, 1000));
  const { result, peakRss } = await withPeakRss(gateway.pid, () => load(target, gateway.pid));
  const flood = await floodRun;
  const gw = { ...result, peakRss };
  process.stderr.write(`${name}: ${gw.requestsPerSecond.toFixed(0)} req/s, p99 ${gw.latencyP99} ms (without the flood ${quietP99} ms), non-2xx ${gw.non2xx}; flood ${flood.requestsPerSecond.toFixed(1)} batches/s, non-2xx ${flood.non2xx}\n`);
  const shortfall = [];
  if (gw.non2xx > 0) shortfall.push(`${gw.non2xx} non-2xx for the other organisation`);
  if (gw.latencyP99 > FLOOD_P99_MS) shortfall.push(`p99 ${gw.latencyP99} ms > ${FLOOD_P99_MS} ms`);
  return {
    name,
    gateway: gw,
    flood: { batchesPerSecond: flood.requestsPerSecond, callsPerSecond: flood.requestsPerSecond * FLOOD_BATCH, non2xx: flood.non2xx, latencyP99: flood.latencyP99 },
    quietP99,
    target: `other organisation: no non-2xx, p99 ≤ ${FLOOD_P99_MS} ms (without the flood: ${quietP99} ms)`,
    met: shortfall.length === 0,
    shortfall,
  };
}

/** Refresh-token rotation on the token endpoint: each connection rotates its own grant's chain. */
async function refreshRotation({ base, seed, measure }) {
  const { clientId, tokens } = await oauthRefreshTokens(base, seed, CONNECTIONS);
  const gw = await measure('refresh-token rotation', 'gateway', { path: '/api/agent/oauth/token', warmup: 0, chain: { kind: 'refresh', tokens, clientId } });
  return { name: 'refresh-token rotation (token endpoint)', gateway: gw, target: 'no non-2xx', met: gw.non2xx === 0, shortfall: gw.non2xx ? [`${gw.non2xx} non-2xx`] : [] };
}

/**
 * The cost of auditing an agent's write: every create_task writes an audit event in its own
 * transaction. Checks that each task the load made through the gateway has its `capability.create_task`
 * event (the floor server marks its own, which it does not audit), then
 * times, straight on PostgreSQL with one connection, the create_task transaction with and without
 * the audit insert (alternating rounds, so drift hits both) and reports the difference beside the
 * create_task scenario's median latency.
 */
async function auditInsertCost({ seed, pg, createTask }) {
  const db = new Client({ connectionString: pg.url('agent_gateway') });
  await db.connect();
  try {
    const counts = await db.query(
      // The floor server's tasks (it audits nothing) carry its own description.
      `SELECT (SELECT count(*)::int FROM tasks WHERE project_id = $1 AND description IS DISTINCT FROM 'created by the floor server') AS tasks,
              (SELECT count(*)::int FROM audit_events WHERE project_id = $1 AND action = 'capability.create_task'
                  AND metadata->>'outcome' = 'succeeded') AS events`,
      [seed.projectId],
    );
    const { tasks, events } = counts.rows[0];
    const [tokenRow] = (await db.query('SELECT id FROM agent_tokens WHERE service_key_id = $1 LIMIT 1', [seed.keyId])).rows;
    const insertTask = `INSERT INTO tasks (project_id, title, description, status)
      SELECT id, 'Audit bench', NULL, 'todo' FROM projects WHERE id = $1 AND deleted_at IS NULL RETURNING id`;
    async function round(withAudit, n) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        await db.query('BEGIN');
        const { rows } = await db.query(insertTask, [seed.projectId]);
        if (withAudit) {
          await db.query(
            `INSERT INTO audit_events (organization_id, chain, project_id, actor_type, actor_id, action, target_type, target_id, metadata)
             VALUES ($1::uuid, $1::uuid::text, $2, 'agent_token', $3, 'capability.create_task', 'task', $4, $5)`,
            [seed.orgId, seed.projectId, tokenRow.id, rows[0].id, JSON.stringify({ tool: 'create_task', outcome: 'succeeded', serviceKeyId: seed.keyId })],
          );
        }
        await db.query('COMMIT');
      }
      return performance.now() - t0;
    }
    const perRound = 200;
    let plain = 0;
    let audited = 0;
    await round(true, 50); // warm-up
    for (let r = 0; r < 10; r++) {
      plain += await round(false, perRound);
      audited += await round(true, perRound);
    }
    const plainMs = plain / (10 * perRound);
    const auditedMs = audited / (10 * perRound);
    const extraMs = auditedMs - plainMs;
    const p50 = createTask?.gateway?.latencyP50;
    return {
      name: 'audit event on create_task (the extra insert, one connection, straight on PostgreSQL)',
      auditInsert: { plainMs, auditedMs, extraMs, createTaskP50: p50, tasks, events },
      target: 'every create_task audited',
      met: tasks > 0 && tasks === events,
      shortfall: tasks === events ? [] : [`${tasks} tasks, ${events} create_task events`],
    };
  } finally {
    await db.end();
  }
}

/**
 * Revoking a service key with 10,000 derived tokens: the tokens are bulk-inserted for 10,000
 * projects; one real derived token probes /api/mcp right after the revoke call until it is
 * refused. Reports the revoke call's latency and the time to the first refused request.
 */
async function cascadeRevocation({ base, seed, pg }) {
  const db = new Client({ connectionString: pg.url('agent_gateway') });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO projects (organization_id, name) SELECT $1, 'bulk ' || g FROM generate_series(1, 10000) g`,
      [seed.orgId],
    );
    const inserted = await db.query(
      `INSERT INTO agent_tokens (token_hash, source, organization_id, project_id, permissions, service_key_id)
       SELECT encode(sha256(gen_random_uuid()::text::bytea), 'hex'), 'service_key', $1, p.id, ARRAY['project:read'], $2
         FROM projects p WHERE p.organization_id = $1 AND p.name LIKE 'bulk %'`,
      [seed.orgId, seed.keyId],
    );
    const probe = mcpRequest('legacy', 'tools/list', {}, { authorization: `Bearer ${seed.token}` });
    const before = await fetch(`${base}/api/mcp`, { method: 'POST', headers: probe.headers, body: probe.body });
    await before.text();
    if (before.status !== 200) throw new Error(`probe token refused before the revoke: ${before.status}`);
    const t0 = performance.now();
    const revoke = callJson(base, `/api/organizations/${seed.orgId}/agent-service-keys/${seed.keyId}/revoke`, { method: 'POST', token: seed.session });
    const revoked = await revoke;
    const revokeMs = performance.now() - t0;
    let refusedMs;
    for (let i = 0; i < 10000 && refusedMs === undefined; i++) {
      const res = await fetch(`${base}/api/mcp`, { method: 'POST', headers: probe.headers, body: probe.body });
      await res.text();
      if (res.status === 401) refusedMs = performance.now() - t0;
    }
    const still = await db.query('SELECT count(*)::int AS n FROM agent_tokens WHERE service_key_id = $1 AND revoked_at IS NULL', [seed.keyId]);
    return {
      name: `revoke a service key with ${inserted.rowCount + 1} derived tokens`,
      revokeMs,
      timeToFirstRefusedMs: refusedMs,
      revokedTokens: revoked.json.revokedTokens,
      stillActive: still.rows[0].n,
      target: '≤ 250 ms to the first refused request',
      met: refusedMs !== undefined && refusedMs <= 250 && still.rows[0].n === 0,
      shortfall: refusedMs === undefined ? ['never refused'] : refusedMs > 250 ? [`${(refusedMs - 250).toFixed(0)} ms over`] : [],
    };
  } finally {
    await db.end();
  }
}

/** A token with a valid checksum that no database row has (so the request reaches the lookup). */
function wellFormedUnknown() {
  return execFileSync(process.execPath, ['-e', "process.stdout.write(require('./dist/libs/credential-store/src/token-format.js').generateToken('dga_'))"], { cwd: root, encoding: 'utf8' });
}

function fmtRps(n) {
  return n === undefined ? '' : n.toFixed(0);
}
function mb(n) {
  return `${(n / 1024 / 1024).toFixed(0)} MB`;
}

function markdown(report) {
  const lines = [
    `| scenario | gateway req/s | p50 ms | p99 ms | non-2xx | peak RSS | SDK req/s | SDK p99 ms | floor req/s | floor p99 ms | ÷ SDK | ÷ floor | target | met |`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|`,
  ];
  const met = (s) => (s.met ? 'yes' : `NO: ${s.shortfall.join('; ')}`);
  for (const s of report.scenarios) {
    if (s.scale) {
      const c = s.scale;
      const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
      lines.push(`| ${s.name} | small ${c.smallMs.toFixed(1)} ms (${kb(c.smallBytes)}), large ${c.largeMs.toFixed(1)} ms (${kb(c.largeBytes)}): ${c.ratio.toFixed(2)}× (median of ${c.requests} sequential requests each) | | | | | | | | | | | ${s.target} | ${met(s)} |`);
      continue;
    }
    if (s.timeToFirstRefusedMs !== undefined || s.revokeMs !== undefined) {
      lines.push(`| ${s.name} | revoke call ${s.revokeMs.toFixed(0)} ms; first refused request after ${s.timeToFirstRefusedMs?.toFixed(0) ?? 'never'} ms; ${s.revokedTokens} revoked, ${s.stillActive} still active | | | | | | | | | | | ${s.target} | ${met(s)} |`);
      continue;
    }
    if (s.auditInsert) {
      const a = s.auditInsert;
      const share = a.createTaskP50 ? `, ${((a.extraMs / a.createTaskP50) * 100).toFixed(0)}% of create_task's p50 ${a.createTaskP50} ms` : '';
      lines.push(`| ${s.name} | transaction ${a.plainMs.toFixed(3)} ms without, ${a.auditedMs.toFixed(3)} ms with: +${a.extraMs.toFixed(3)} ms${share}; ${a.events} events for ${a.tasks} tasks | | | | | | | | ${s.target} | ${s.met ? 'yes' : `NO: ${s.shortfall.join('; ')}`} |`);
      continue;
    }
    if (s.flood) {
      const g = s.gateway;
      lines.push(`| ${s.name} | ${fmtRps(g.requestsPerSecond)} | ${g.latencyP50} | ${g.latencyP99} | ${g.non2xx} | ${mb(g.peakRss)} |  |  |  |  |  |  | ${s.target}; the flood: ${s.flood.batchesPerSecond.toFixed(1)} batches/s (${s.flood.callsPerSecond.toFixed(0)} calls/s), p99 ${s.flood.latencyP99} ms, non-2xx ${s.flood.non2xx} | ${met(s)} |`);
      continue;
    }
    const g = s.gateway ?? {};
    const ratio = s.ratio !== undefined ? `${s.ratio.toFixed(2)}×` : s.ratioToAuthenticated !== undefined ? `${s.ratioToAuthenticated.toFixed(2)}× auth` : '';
    const ratioFloor = s.ratioFloor !== undefined ? `${s.ratioFloor.toFixed(2)}×` : '';
    lines.push(
      `| ${s.name} | ${fmtRps(g.requestsPerSecond)} | ${g.latencyP50 ?? ''} | ${g.latencyP99 ?? ''} | ${g.non2xx ?? ''} | ${g.peakRss ? mb(g.peakRss) : ''} | ${fmtRps(s.reference?.requestsPerSecond)} | ${s.reference?.latencyP99 ?? ''} | ${fmtRps(s.floor?.requestsPerSecond)} | ${s.floor?.latencyP99 ?? ''} | ${ratio} | ${ratioFloor} | ${s.target ?? ''} | ${met(s)} |`,
    );
  }
  const cpuRows = report.scenarios.filter((s) => (s.floor || s.ratioToAuthenticated !== undefined) && s.gateway?.cpuUsPerRequest !== undefined);
  if (cpuRows.length) {
    lines.push(
      '',
      'CPU time each server spent per answered request, and what PostgreSQL spent per request meanwhile (median of the rounds; less sensitive than req/s to other load on the machine):',
      '',
      `| scenario | gateway µs | of which system | database µs, gateway | SDK µs | floor µs | database µs, floor | SDK ÷ gateway | floor ÷ gateway |${report.baseline ? ' baseline µs | baseline req/s | baseline ÷ gateway, CPU (paired rounds) | gateway ÷ baseline, req/s (paired rounds) |' : ''}`,
      `|---|---:|---:|---:|---:|---:|---:|---:|---:|${report.baseline ? '---:|---:|---:|---:|' : ''}`,
    );
    const us = (n) => (n === undefined || !Number.isFinite(n) ? '' : n.toFixed(0));
    const times = (a, b) => (a === undefined || b === undefined ? '' : `${(a / b).toFixed(2)}×`);
    for (const s of cpuRows) {
      const [g, r, f] = [s.gateway.cpuUsPerRequest, s.reference?.cpuUsPerRequest, s.floor?.cpuUsPerRequest];
      const b = s.baseline;
      const baselineCells = b
        ? ` ${b.cpuUsPerRequest.toFixed(0)} | ${fmtRps(b.requestsPerSecond)} | ${b.pairedCpuRatio.toFixed(2)}× (${b.pairedCpuRatios.map((r) => r.toFixed(2)).join(', ')}) | ${(1 / b.pairedRpsRatio).toFixed(2)}× |`
        : '';
      lines.push(
        `| ${s.name} | ${us(g)} | ${us(s.gateway.systemCpuUsPerRequest)} | ${us(s.gateway.databaseCpuUsPerRequest)} | ${us(r)} | ${us(f)} | ${us(s.floor?.databaseCpuUsPerRequest)} | ${times(r, g)} | ${times(f, g)} |${baselineCells}`,
      );
    }
  }
  if (report.baseline) lines.push('', `Baseline: the build in ${report.baseline}, measured in the same rounds on the same database.`);
  lines.push(
    '',
    `${report.connections} connections, ${report.duration} s per run, median of ${report.rounds} alternating rounds, ` +
      `load average before the run ${report.load.join(' / ')}, Node ${report.node}, ${report.date}.`,
  );
  return lines.join('\n');
}

module.exports = { callJson, cleanup, loadAverage, mcpRequest, seedGateway, startProcess, waitFor };

if (require.main === module) {
  const run = args.includes('--soak') ? () => require('./bench/soak').soak(args) : main;
  run().catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    cleanup();
    process.exit(1);
  });
}
