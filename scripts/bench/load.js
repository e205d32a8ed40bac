#!/usr/bin/env node
/**
 * Drives one load scenario with autocannon from its own process, so the load generator never
 * shares an event loop with the service it measures. Reads the scenario as JSON from argv[2],
 * prints autocannon's summary as JSON on stdout.
 *
 * Scenario: { url, connections, duration, warmup, method, path, headers, body,
 *             chain?: { kind: 'refresh', tokens: string[], clientId }
 *                   | { kind: 'new-agent-token' } }
 *
 * `new-agent-token`: every request carries a new well-formed `dga_` token no one was issued
 * (made by the service's own generator, from the build, before the run), so none of them is
 * ever refused from memory.
 */
const { join } = require('node:path');
const autocannon = require('autocannon');

const scenario = JSON.parse(process.argv[2]);
/** New tokens made before a `new-agent-token` run: more than the warm-up and the run answer at 20,000 a second. */
const TOKENS_MADE_AHEAD = 300_000;
/** The tokens made ahead, and the next one to send. */
let made;
let nextMade = 0;

function requestsFor(s) {
  if (!s.chain) return [{ method: s.method, path: s.path, headers: s.headers, body: s.body }];
  if (s.chain.kind === 'refresh') {
    // Every answer's refresh_token goes back into a shared queue and the next request takes one,
    // so each in-flight request rotates a live token of its own grant. (autocannon clears the
    // per-connection context between requests, so the chain cannot live there.)
    const queue = [...s.chain.tokens];
    return [
      {
        method: 'POST',
        path: s.path,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        setupRequest(req) {
          const token = queue.shift() ?? 'dgr_exhausted';
          const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: s.chain.clientId });
          return { ...req, body: body.toString() };
        },
        onResponse(status, body) {
          if (status === 200) queue.push(JSON.parse(body).refresh_token);
        },
      },
    ];
  }
  if (s.chain.kind === 'new-agent-token') {
    const { generateToken } = require(join(__dirname, '..', '..', 'dist/libs/credential-store/src/token-format.js'));
    // Made before the runs, once for the warm-up and the measured run (which goes on where the
    // warm-up stopped, so no token is sent twice): a token costs about 6 µs to make, CPU the
    // client would otherwise take from the two cores the service runs on. Past the made ones,
    // each request makes its own.
    made ??= Array.from({ length: TOKENS_MADE_AHEAD }, () => `Bearer ${generateToken('dga_')}`);
    return [
      {
        method: s.method,
        path: s.path,
        body: s.body,
        setupRequest(req) {
          const authorization = nextMade < made.length ? made[nextMade++] : `Bearer ${generateToken('dga_')}`;
          return { ...req, headers: { ...s.headers, authorization } };
        },
      },
    ];
  }
  throw new Error(`unknown chain ${s.chain.kind}`);
}

async function run(duration) {
  return autocannon({
    url: scenario.url,
    connections: scenario.connections,
    duration,
    pipelining: 1,
    requests: requestsFor(scenario),
  });
}

(async () => {
  if (scenario.warmup > 0 && scenario.chain?.kind !== 'refresh') await run(scenario.warmup);
  // Tells the parent the measured run starts now (it reads the server's CPU time here).
  process.stdout.write('measuring\n');
  const r = await run(scenario.duration);
  const summary = {
    requestsPerSecond: r.requests.average,
    latencyP50: r.latency.p50,
    latencyP99: r.latency.p99,
    latencyAverage: r.latency.average,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: r.statusCodeStats,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
})().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
