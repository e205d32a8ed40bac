/**
 * `npm run bench -- --soak`: the service under a steady mixed load for a while, watching for what
 * only time shows: server errors and memory that keeps growing.
 *
 * Starts a throwaway PostgreSQL (or, with `--embedded`, the embedded database in a new data
 * folder) and the built service as in production (request log on, metrics on a local port, the
 * MCP request limits on but above the load), seeds through the public API, then runs together:
 * - MCP calls at `--rate` requests per second (default 100) spread over 4 workers, both protocol
 *   generations: tools/list, get_project, list_tasks, get_task, create_task then update_task and
 *   delete_task of the task it made;
 * - refresh-token rotation: 2 grants, each rotated in turn and its new access token used once;
 * - derive and revoke: a project token derived, used, revoked, refused (401 expected); every
 *   tenth round a new service key too, revoked with its token;
 * - consent flows: the consent page, its approval, the code exchange, an MCP call with the new
 *   access token, then the refresh token revoked (RFC 7009).
 * Every answer is checked against what that step expects. Each minute it records the answers,
 * the 5xx, the unexpected ones, and the service's resident memory (lowest, median and peak of
 * 1 s samples from /proc) and JS heap (from /metrics). At the end: the per-minute table and
 * whether RSS grew from minute 2 to the last minute by more than 5%, read from the least-squares
 * line through every sample of those minutes: the garbage collector's saw-tooth (tens of MB up
 * and down within a minute) moves any single minute's figure more than that.
 *
 * Options: --duration S (default 600), --rate N (MCP requests per second, default 100),
 * --embedded, --node-flags "FLAGS" (for the service's node, say --trace-gc), --service-log FILE
 * (the service's standard output: its request log, and what such flags print). Writes
 * bench-results/soak.json.
 */
const { randomBytes } = require('node:crypto');
const { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');
const { findPostgresBin, freePort, startPostgres, stopPostgres } = require('../lib/postgres');
const { FlowError, oauthSession } = require('./oauth-flow');

const root = join(__dirname, '..', '..');
const RSS_GROWTH_LIMIT = 0.05;

function options(args) {
  const value = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const text = (name) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  return {
    duration: value('duration', 600),
    rate: value('rate', 100),
    embedded: args.includes('--embedded'),
    nodeFlags: (text('node-flags') ?? '').split(' ').filter(Boolean),
    serviceLog: text('service-log'),
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes) => Math.round(bytes / 1024 / 1024);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : 0;
};

/** The process's resident memory now, or undefined once it has exited. */
function rssOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Answers counted per minute: every status, the 5xx, and anything a step did not expect. */
class Tally {
  constructor() {
    this.minute = this.fresh();
    this.unexpectedSamples = [];
  }
  fresh() {
    return { answers: 0, serverErrors: 0, unexpected: 0, failures: 0, byStep: {} };
  }
  answer(step, status, expected) {
    const m = this.minute;
    m.answers++;
    m.byStep[step] = (m.byStep[step] ?? 0) + 1;
    if (status >= 500) m.serverErrors++;
    if (!expected.includes(status)) {
      m.unexpected++;
      if (this.unexpectedSamples.length < 20) this.unexpectedSamples.push(`${step}: ${status}`);
    }
  }
  /** A request that got no answer at all (connection refused or reset): counted as a failure. */
  failure(step, error) {
    this.minute.failures++;
    if (this.unexpectedSamples.length < 20) this.unexpectedSamples.push(`${step}: ${error.message}`);
  }
  take() {
    const m = this.minute;
    this.minute = this.fresh();
    return m;
  }
}

async function soak(args) {
  const bench = require('../bench');
  const opts = options(args);
  const tally = new Tally();
  const dataDir = opts.embedded ? mkdtempSync(join(tmpdir(), 'ag-soak-')) : undefined;
  let pg;
  try {
    const env = {};
    if (opts.embedded) {
      env.DATA_DIR = dataDir;
    } else {
      const bin = findPostgresBin();
      if (!bin) throw new Error('the soak needs the PostgreSQL server binaries (Debian package postgresql-15), or --embedded');
      pg = await startPostgres(bin, { shared_buffers: '256MB' });
      const admin = new Client({ connectionString: pg.url('postgres') });
      await admin.connect();
      await admin.query('CREATE DATABASE agent_gateway');
      await admin.end();
      env.DATABASE_URL = pg.url('agent_gateway');
    }
    const port = await freePort();
    const metricsPort = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const gateway = bench.startProcess(process.execPath, [...opts.nodeFlags, join(root, 'dist/apps/gateway/src/main.js')], {
      ...env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: base,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      SECRETS_KEYS: `soak:${randomBytes(32).toString('base64')}`,
      LOG_LEVEL: 'info',
      METRICS_PORT: String(metricsPort),
      REGISTRATION_RATE_LIMIT_PER_MINUTE: '1000',
      MCP_RATE_LIMIT_PER_TOKEN: '10000000',
      MCP_RATE_LIMIT_PER_ORGANIZATION: '10000000',
    });
    if (opts.serviceLog) gateway.stdout.pipe(createWriteStream(opts.serviceLog));
    await bench.waitFor(`${base}/health/ready`, 180_000);
    const seed = await bench.seedGateway(base);
    const loadBefore = bench.loadAverage();
    process.stderr.write(`soak: ${opts.duration} s, ${opts.rate} MCP requests/s, ${opts.embedded ? 'embedded database' : 'PostgreSQL'}; load average ${loadBefore.join(' / ')}\n`);

    const started = Date.now();
    const until = started + opts.duration * 1000;
    const running = () => Date.now() < until;
    const flows = new Flows(base, seed, tally, bench);
    await flows.prepare();
    const workers = [
      ...Array.from({ length: 4 }, (_, i) => flows.mcpWorker(i, opts.rate / 4, running)),
      flows.refreshWorker(running),
      flows.deriveRevokeWorker(running),
      flows.consentWorker(running),
    ];

    const minutes = [];
    const allSamples = [];
    let samples = [];
    const sampler = setInterval(() => {
      const rss = rssOf(gateway.pid);
      if (rss === undefined) return;
      samples.push(rss);
      allSamples.push({ t: (Date.now() - started) / 1000, rss });
    }, 1000);
    const exited = new Promise((resolve) => gateway.once('exit', (code, signal) => resolve(`the service exited (${signal ?? code})`)));
    const minuteCount = Math.ceil(opts.duration / 60);
    for (let minute = 1; minute <= minuteCount; minute++) {
      const ended = await Promise.race([sleep(Math.max(0, Math.min(started + minute * 60_000, until) - Date.now())), exited]);
      if (ended) throw new Error(`${ended} during minute ${minute} of the soak`);
      const counts = tally.take();
      const heap = await heapUsed(metricsPort);
      const row = { minute, ...counts, rssLowest: Math.min(...samples), rssMedian: median(samples), rssPeak: Math.max(...samples), heapUsed: heap };
      samples = [];
      minutes.push(row);
      process.stderr.write(
        `minute ${minute}: ${counts.answers} answers, ${counts.serverErrors} 5xx, ${counts.unexpected} unexpected, ${counts.failures} failed; ` +
          `RSS ${mb(row.rssMedian)} MB (peak ${mb(row.rssPeak)} MB), heap ${mb(heap)} MB\n`,
      );
    }
    clearInterval(sampler);
    await Promise.all(workers);

    const from = minutes[Math.min(1, minutes.length - 1)];
    const last = minutes[minutes.length - 1];
    const trend = rssTrend(allSamples.filter((x) => x.t >= (from.minute - 1) * 60));
    const growth = (trend.end - trend.start) / trend.start;
    const totals = minutes.reduce(
      (t, m) => ({ answers: t.answers + m.answers, serverErrors: t.serverErrors + m.serverErrors, unexpected: t.unexpected + m.unexpected, failures: t.failures + m.failures }),
      { answers: 0, serverErrors: 0, unexpected: 0, failures: 0 },
    );
    const report = {
      date: new Date(started).toISOString(),
      node: process.version,
      database: opts.embedded ? 'embedded' : 'postgresql',
      duration: opts.duration,
      mcpRate: opts.rate,
      loadAverage: { before: loadBefore, after: bench.loadAverage() },
      minutes,
      totals,
      unexpectedSamples: tally.unexpectedSamples,
      rss: { fromMinute: from.minute, toMinute: last.minute, ...trend, growth, limit: RSS_GROWTH_LIMIT, flat: growth <= RSS_GROWTH_LIMIT },
      met: totals.serverErrors === 0 && totals.failures === 0 && growth <= RSS_GROWTH_LIMIT,
    };
    mkdirSync(join(root, 'bench-results'), { recursive: true });
    writeFileSync(join(root, 'bench-results', 'soak.json'), `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${markdown(report)}\n`);
  } finally {
    bench.cleanup();
    await sleep(500);
    if (pg) stopPostgres(pg);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The four kinds of traffic, each a loop that runs while `running()`. */
class Flows {
  constructor(base, seed, tally, bench) {
    Object.assign(this, { base, seed, tally, bench });
  }

  async prepare() {
    const onAnswer = (status, step) => this.tally.answer(step, status, [200, 201, 303]);
    this.oauth = await oauthSession(this.base, this.seed, onAnswer);
    this.refreshTokens = [];
    for (let i = 0; i < 2; i++) this.refreshTokens.push((await this.oauth.grant(this.seed.projectId)).refresh_token);
    // Derived tokens go to a project of their own: the seed's key already holds the seed project's.
    const project = await this.rest('create project', '/projects', { name: 'Soak derive' });
    if (project.status !== 201) throw new Error(`could not create the derive project: ${project.status} ${project.text}`);
    this.deriveProjectId = JSON.parse(project.text).id;
  }

  /** Runs `step` until `running()` is false; an exception is counted and the loop goes on. */
  async loop(name, running, pauseMs, step) {
    while (running()) {
      try {
        await step();
      } catch (error) {
        // A FlowError is an answer already counted (unexpected); anything else got no answer.
        if (!(error instanceof FlowError)) this.tally.failure(name, error);
        await sleep(1000);
      }
      await sleep(pauseMs);
    }
  }

  /** One request; `expected` statuses are fine, anything else is counted as unexpected. */
  async send(step, path, init, expected = [200]) {
    try {
      const res = await fetch(`${this.base}${path}`, { redirect: 'manual', ...init });
      const text = await res.text();
      this.tally.answer(step, res.status, expected);
      return { status: res.status, text };
    } catch (error) {
      this.tally.failure(step, error);
      return { status: 0, text: '' };
    }
  }

  mcp(step, token, generation, method, params, expected = [200]) {
    const r = this.bench.mcpRequest(generation, method, params, { authorization: `Bearer ${token}` });
    return this.send(step, '/api/mcp', { method: 'POST', headers: r.headers, body: r.body }, expected);
  }

  rest(step, path, body, expected = [200, 201]) {
    return this.send(
      step,
      `/api/organizations/${this.seed.orgId}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${this.seed.session}` }, body: JSON.stringify(body ?? {}) },
      expected,
    );
  }

  async mcpWorker(index, perSecond, running) {
    const interval = 1000 / perSecond;
    const token = this.seed.token;
    let next = Date.now();
    for (let i = 0; running(); i++) {
      const generation = (i + index) % 2 ? 'legacy' : 'modern';
      const call = (name, args) => this.mcp(`tools/call ${name}`, token, generation, 'tools/call', { name, arguments: args });
      switch (i % 6) {
        case 0:
          await this.mcp('tools/list', token, generation, 'tools/list', {});
          break;
        case 1:
          await call('get_project', {});
          break;
        case 2:
          await call('list_tasks', { limit: 20 });
          break;
        case 3:
          await call('get_task', { id: this.seed.taskId });
          break;
        default: {
          const created = await call('create_task', { title: `Soak ${index}-${i}` });
          const id = /"id":"([0-9a-f-]{36})"/.exec(created.text)?.[1];
          if (id) {
            await call('update_task', { id, status: 'done' });
            await call('delete_task', { id });
          }
        }
      }
      next += interval;
      await sleep(Math.max(0, next - Date.now()));
    }
  }

  refreshWorker(running) {
    let i = 0;
    return this.loop('refresh rotation', running, 100, async () => {
      const slot = i++ % this.refreshTokens.length;
      let pair;
      try {
        pair = await this.oauth.refresh(this.refreshTokens[slot]);
      } catch (error) {
        // A refused rotation (counted as unexpected) ends that chain: start a new grant.
        this.refreshTokens[slot] = (await this.oauth.grant(this.seed.projectId)).refresh_token;
        throw error;
      }
      this.refreshTokens[slot] = pair.refresh_token;
      await this.mcp('tools/list (refreshed token)', pair.access_token, 'modern', 'tools/list', {});
    });
  }

  deriveRevokeWorker(running) {
    const keyId = this.seed.keyId;
    const projectId = this.deriveProjectId;
    let i = 0;
    return this.loop('derive and revoke', running, 200, async () => {
      if (++i % 10 === 0) {
        const key = await this.rest('create service key', '/agent-service-keys', { name: `soak ${i}` });
        if (key.status === 201) {
          const newKey = JSON.parse(key.text).id;
          const derived = await this.rest('derive (new key)', `/agent-service-keys/${newKey}/tokens`, { projectId });
          await this.rest('revoke service key', `/agent-service-keys/${newKey}/revoke`);
          if (derived.status === 201) await this.mcp('tools/list (revoked key)', JSON.parse(derived.text).token, 'legacy', 'tools/list', {}, [401]);
        }
      }
      const derived = await this.rest('derive', `/agent-service-keys/${keyId}/tokens`, { projectId });
      if (derived.status !== 201) return;
      const { id, token } = JSON.parse(derived.text);
      await this.mcp('tools/list (derived token)', token, 'legacy', 'tools/list', {});
      await this.rest('revoke token', `/agent-service-keys/${keyId}/tokens/${id}/revoke`);
      await this.mcp('tools/list (revoked token)', token, 'legacy', 'tools/list', {}, [401]);
    });
  }

  consentWorker(running) {
    return this.loop('consent flow', running, 200, async () => {
      const pair = await this.oauth.grant(this.seed.projectId);
      await this.mcp('tools/call get_project (new grant)', pair.access_token, 'modern', 'tools/call', { name: 'get_project', arguments: {} });
      await this.oauth.revoke(pair.refresh_token);
    });
  }
}

/** The least-squares line through the samples: its value at the first and the last sample. */
function rssTrend(points) {
  const n = points.length;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const mr = points.reduce((a, p) => a + p.rss, 0) / n;
  const slope = points.reduce((a, p) => a + (p.t - mt) * (p.rss - mr), 0) / Math.max(1e-9, points.reduce((a, p) => a + (p.t - mt) ** 2, 0));
  const at = (t) => mr + slope * (t - mt);
  return { start: at(points[0].t), end: at(points[n - 1].t), mbPerMinute: (slope * 60) / 1024 / 1024 };
}

async function heapUsed(metricsPort) {
  try {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const m = /^agent_gateway_nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(text);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function markdown(r) {
  const lines = [
    '| minute | answers | 5xx | unexpected | no answer | RSS lowest | RSS median | RSS peak | JS heap used at its end |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.minutes.map(
      (m) =>
        `| ${m.minute} | ${m.answers} | ${m.serverErrors} | ${m.unexpected} | ${m.failures} | ${mb(m.rssLowest)} MB | ${mb(m.rssMedian)} MB | ${mb(m.rssPeak)} MB | ${mb(m.heapUsed)} MB |`,
    ),
    '',
    `Totals: ${r.totals.answers} answers, ${r.totals.serverErrors} 5xx, ${r.totals.unexpected} unexpected, ${r.totals.failures} without an answer` +
      (r.unexpectedSamples.length ? ` (first: ${r.unexpectedSamples.slice(0, 5).join('; ')})` : '') +
      '.',
    `RSS from minute ${r.rss.fromMinute} to minute ${r.rss.toMinute} (least-squares line through the 1 s samples): ${mb(r.rss.start)} MB → ${mb(r.rss.end)} MB, ` +
      `${r.rss.growth >= 0 ? '+' : ''}${(r.rss.growth * 100).toFixed(1)}% (limit ${r.rss.limit * 100}%; ${r.rss.mbPerMinute.toFixed(1)} MB a minute): ${r.rss.flat ? 'flat' : 'GREW'}. ${r.met ? 'Met.' : 'NOT met.'}`,
    `${r.duration} s, ${r.mcpRate} MCP requests/s plus the other flows, ${r.database}, Node ${r.node}, ${r.date}; ` +
      `load average ${r.loadAverage.before.join(' / ')} before, ${r.loadAverage.after.join(' / ')} after.`,
  ];
  return lines.join('\n');
}

module.exports = { soak };
