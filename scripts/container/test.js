#!/usr/bin/env node
/**
 * Runs the built image as an operator would, twice: on the embedded database with a podman volume
 * for /data, and against a throwaway PostgreSQL on the host network. Each time, as the non-root
 * `node` user on a read-only root filesystem (writable /data and /tmp only):
 *   - /health/ready answers 200 within 30 s of `podman start` (`podman create` is timed apart:
 *     with the vfs storage driver it copies the whole image);
 *   - /api/mcp answers the exact 401 with its challenge;
 *   - an administrator signs up, makes a project, a service key and a derived token, and the
 *     official MCP client calls tools with it (create_task, list_tasks);
 *   - SIGTERM: readiness turns 503 at once, the process exits 0 after the drain;
 *   - started again, the container answers the same token with the same task.
 * Then the Kubernetes `dev` overlay's pod (the base with a Secret generated for this run by the
 * overlay's make-secrets.sh) under `podman kube play` on that PostgreSQL: ready, the 401.
 * Without podman it skips, except under CI=true, where the image is required.
 *   node scripts/container/test.js [IMAGE]      (default localhost/agent-gateway:ci)
 *   CONTAINER_TEST_ONLY=kube: the kube play part alone
 */
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const { randomBytes, randomUUID } = require('node:crypto');
const { join } = require('node:path');
const { findPostgresBin, freePort, startPostgres, stopPostgres } = require('../lib/postgres');

const image = process.argv[2] || 'localhost/agent-gateway:ci';
const READY_WITHIN_MS = 30_000;
const SHUTDOWN_DELAY_SECONDS = 2;
const SHUTDOWN_DRAIN_SECONDS = 5;
const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF || join(__dirname, 'containers.conf') };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function podman(args, { check = true } = {}) {
  const result = spawnSync('podman', ['--runtime', 'runc', '--storage-driver', 'vfs', ...args], { env, encoding: 'utf8' });
  if (check && result.status !== 0) throw new Error(`podman ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`);
  return result;
}

// The MCP endpoint's 401 (test/fixtures/mcp-401.ts), written out literally.
const MCP_401_BODY = {
  message:
    'Capabilities require an agent project token, sent as a Bearer dga_ token (Authorization: Bearer dga_...) ' +
    'or in the x-agent-token header. A session JWT or an API key authenticates the transport but opens no capability.',
  error: 'Unauthorized',
  statusCode: 401,
};
// The same 401 for a dga_ token that is not live: the seed's message and one sentence more.
const MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY = {
  ...MCP_401_BODY,
  message: `${MCP_401_BODY.message} This agent token was not recognised (revoked, expired or mistyped).`,
};
const SCOPE = 'project:read tasks:read tasks:write tasks:delete';
const challenge = (baseUrl, error) =>
  `Bearer ${error ? `error="${error}", ` : ''}scope="${SCOPE}", resource_metadata="${baseUrl}/.well-known/oauth-protected-resource/api/mcp"`;

async function call(baseUrl, path, { method = 'GET', token, body } = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, body: json };
}

/** A gateway container; `start()` runs it and waits for readiness, returning the time it took. */
function gatewayContainer(name, port, { dataVolume, databaseUrl, sessionSecret, secretsKeys }) {
  const baseUrl = `http://127.0.0.1:${port}`;
  const args = [
    'run', '-d', '--name', name, '--network', 'host', '--no-healthcheck',
    '--read-only', '--tmpfs', '/tmp:rw,nosuid,nodev,size=64m',
    '-e', `PORT=${port}`, '-e', `BASE_URL=${baseUrl}`, '-e', `SESSION_SECRET=${sessionSecret}`, '-e', `SECRETS_KEYS=${secretsKeys}`,
    '-e', `SHUTDOWN_DELAY_SECONDS=${SHUTDOWN_DELAY_SECONDS}`, '-e', `SHUTDOWN_DRAIN_SECONDS=${SHUTDOWN_DRAIN_SECONDS}`,
    ...(dataVolume ? ['-v', `${dataVolume}:/data`] : []),
    ...(databaseUrl ? ['-e', `DATABASE_URL=${databaseUrl}`] : []),
    image,
  ];
  return {
    name,
    baseUrl,
    logs: () => {
      const r = podman(['logs', '--tail', '40', name], { check: false });
      return `${r.stdout}${r.stderr}`;
    },
    /** `podman create`: with the vfs storage driver this copies the image (tens of seconds). */
    create: () => podman(['create', ...args.slice(2)]),
    async start() {
      const started = Date.now();
      podman(['start', name]);
      while (Date.now() - started < READY_WITHIN_MS) {
        const ready = await fetch(`${baseUrl}/health/ready`).then((r) => r.status, () => 0);
        if (ready === 200) return Date.now() - started;
        const state = podman(['inspect', '--format', '{{.State.Status}}', name], { check: false }).stdout.trim();
        if (state === 'exited') break;
        await sleep(200);
      }
      throw new Error(`${name} not ready within ${READY_WITHIN_MS / 1000} s:\n${this.logs()}`);
    },
    /** SIGTERM as an orchestrator sends it: readiness 503 at once, exit 0 after the delay and drain. */
    async terminate() {
      const signalled = Date.now();
      podman(['kill', '--signal', 'TERM', name]);
      let ready = 200;
      while (ready === 200 && Date.now() - signalled < 1500) {
        ready = await fetch(`${baseUrl}/health/ready`).then((r) => r.status, () => 0);
        if (ready === 200) await sleep(50);
      }
      assert.equal(ready, 503, 'readiness answers 503 from the first moment of a shutdown');
      const code = podman(['wait', name]).stdout.trim();
      const took = Date.now() - signalled;
      assert.equal(code, '0', `exit code after SIGTERM (logs:\n${this.logs()})`);
      assert.ok(took >= SHUTDOWN_DELAY_SECONDS * 1000, `exited after ${took} ms, before the ${SHUTDOWN_DELAY_SECONDS} s delay`);
      return took;
    },
    // -v: the anonymous volume the image's VOLUME gives a container without one of its own.
    remove: () => podman(['rm', '-f', '-v', name], { check: false }),
  };
}

/** What a user checks about the running container: who runs it and where it may write. */
function checkConfinement(container, { dataWritable = true } = {}) {
  const status = podman(['exec', container.name, 'cat', '/proc/1/status']).stdout;
  const uid = /^Uid:\s+(\d+)/m.exec(status)[1];
  assert.equal(uid, '1000', 'the gateway process runs as uid 1000 (node), not root');
  const appWrite = podman(['exec', container.name, 'touch', '/app/probe'], { check: false });
  assert.notEqual(appWrite.status, 0, '/app is not writable');
  assert.match(appWrite.stderr, /Read-only file system/);
  const rootWrite = podman(['exec', container.name, 'touch', '/probe'], { check: false });
  assert.match(rootWrite.stderr, /Read-only file system|Permission denied/);
  podman(['exec', container.name, 'sh', '-c', 'touch /tmp/probe && rm /tmp/probe']);
  if (dataWritable) podman(['exec', container.name, 'sh', '-c', 'touch /data/probe && rm /data/probe']);
}

async function check401(baseUrl) {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ci', version: '1' } },
  };
  const anonymous = await fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(initialize),
  });
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('www-authenticate'), challenge(baseUrl));
  assert.deepEqual(await anonymous.json(), MCP_401_BODY);
  const forged = await fetch(`${baseUrl}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer dga_not-a-token' },
    body: JSON.stringify(initialize),
  });
  assert.equal(forged.status, 401);
  assert.equal(forged.headers.get('www-authenticate'), challenge(baseUrl, 'invalid_token'));
  assert.deepEqual(await forged.json(), MCP_401_UNRECOGNISED_AGENT_TOKEN_BODY);
}

/** The machine flow (docs/machine-flow.md): a service key, a derived token for one project. */
async function provision(baseUrl) {
  const email = `ops-${randomUUID().slice(0, 8)}@example.test`;
  const password = `pw-${randomUUID()}`;
  const signup = await call(baseUrl, '/api/auth/signup', {
    method: 'POST',
    body: { email, password, name: 'Otto Ops', organizationName: 'Container Ltd' },
  });
  assert.equal(signup.status, 201, JSON.stringify(signup.body));
  const org = signup.body.organization.id;
  const session = signup.body.accessToken;
  const project = await call(baseUrl, `/api/organizations/${org}/projects`, { method: 'POST', token: session, body: { name: 'Container' } });
  assert.equal(project.status, 201, JSON.stringify(project.body));
  const key = await call(baseUrl, `/api/organizations/${org}/agent-service-keys`, { method: 'POST', token: session, body: { name: 'ci' } });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  const derived = await call(baseUrl, `/api/organizations/${org}/agent-service-keys/${key.body.id}/tokens`, {
    method: 'POST',
    token: session,
    body: { projectId: project.body.id },
  });
  assert.equal(derived.status, 201, JSON.stringify(derived.body));
  assert.match(derived.body.token, /^dga_/);
  return { email, password, token: derived.body.token };
}

/** The official MCP client with the derived token: `tools/call`. */
async function withMcp(baseUrl, token, fn) {
  const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'agent-gateway-container-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

async function listedTitles(client) {
  const result = await client.callTool({ name: 'list_tasks', arguments: {} });
  assert.ok(!result.isError, `list_tasks failed: ${JSON.stringify(result)}`);
  return JSON.stringify(result);
}

async function scenario(label, options) {
  const port = await freePort();
  const container = gatewayContainer(`ag-ci-${label}-${randomBytes(3).toString('hex')}`, port, options);
  const figures = {};
  try {
    container.create();
    figures.readyMs = await container.start();
    checkConfinement(container);
    await check401(container.baseUrl);
    const { email, password, token } = await provision(container.baseUrl);
    const title = `Shipped from a container ${randomUUID().slice(0, 8)}`;
    await withMcp(container.baseUrl, token, async (client) => {
      const created = await client.callTool({ name: 'create_task', arguments: { title } });
      assert.ok(!created.isError, `create_task failed: ${JSON.stringify(created)}`);
      assert.ok((await listedTitles(client)).includes(title));
    });
    figures.stopMs = await container.terminate();

    // The same container started again (its root filesystem is read-only: all it keeps is in
    // /data or PostgreSQL): the account, the token and the task are still there.
    figures.restartReadyMs = await container.start();
    const login = await call(container.baseUrl, '/api/auth/login', { method: 'POST', body: { email, password } });
    assert.equal(login.status, 200, 'the account survives the restart');
    await withMcp(container.baseUrl, token, async (client) => {
      assert.ok((await listedTitles(client)).includes(title), 'the task survives the restart');
    });
    figures.restartStopMs = await container.terminate();
    process.stdout.write(
      `ok  ${label}: ready in ${(figures.readyMs / 1000).toFixed(1)} s (again after the restart: ${(figures.restartReadyMs / 1000).toFixed(1)} s), ` +
        `exit 0 ${(figures.stopMs / 1000).toFixed(1)} s after SIGTERM\n`,
    );
  } catch (error) {
    process.stderr.write(`FAIL ${label}: ${error.stack}\n--- container log ---\n${container.logs()}\n`);
    throw error;
  } finally {
    container.remove();
  }
}

async function main() {
  const found = spawnSync('podman', ['--version'], { encoding: 'utf8' });
  if (found.status !== 0) {
    if (process.env.CI === 'true') throw new Error('podman is required under CI=true (the container test)');
    process.stdout.write('skipped: podman is not installed\n');
    return;
  }
  if (podman(['image', 'exists', image], { check: false }).status !== 0) {
    if (process.env.CI === 'true') throw new Error(`image ${image} not found: build it first (scripts/container/build.sh)`);
    process.stdout.write(`skipped: image ${image} not built (scripts/container/build.sh)\n`);
    return;
  }
  const sessionSecret = randomBytes(32).toString('base64url');
  const secretsKeys = `k1:${randomBytes(32).toString('base64')}`;
  if (process.env.CONTAINER_TEST_ONLY === 'kube') {
    const server = await startPostgres(findPostgresBin());
    try {
      return await kubePlay(server.url('postgres'));
    } finally {
      stopPostgres(server);
    }
  }

  const volume = `ag-ci-data-${randomBytes(3).toString('hex')}`;
  podman(['volume', 'create', volume]);
  try {
    await scenario('embedded', { dataVolume: volume, sessionSecret, secretsKeys });
  } finally {
    podman(['volume', 'rm', '-f', volume], { check: false });
  }

  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL server binaries not found (postgresql-15)');
  const server = await startPostgres(bin);
  try {
    await scenario('postgres', { databaseUrl: server.url('postgres'), sessionSecret, secretsKeys });
    execFileSync(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres', 'kube']);
    await kubePlay(server.url('kube'));
  } finally {
    stopPostgres(server);
  }
}

/**
 * The Kubernetes `dev` overlay's gateway pod (deploy/kubernetes/overlays/dev: the base, with the
 * Secret its make-secrets.sh generates for this run) run by `podman kube play` on the host's
 * network against the host's PostgreSQL (no registry is reachable, so no PostgreSQL pod): its
 * securityContext applied (uid 1000, read-only root), ready, and the exact 401.
 */
async function kubePlay(databaseUrl) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const spec = join(require('node:os').tmpdir(), `ag-kube-${randomBytes(3).toString('hex')}.yaml`);
  const overlay = join(__dirname, '..', '..', 'deploy', 'kubernetes', 'overlays', 'dev');
  execFileSync('bash', [join(overlay, 'make-secrets.sh'), databaseUrl], { stdio: 'ignore' });
  execFileSync(process.execPath, [join(__dirname, 'kubernetes.js'), 'pod', overlay, image, spec, `BASE_URL=${baseUrl}`, `PORT=${port}`]);
  // What a failed run may have left: the pod `kube play` names after the Deployment.
  const cleanUp = () => {
    podman(['rm', '-f', '-v', 'agent-gateway-pod-0-gateway'], { check: false });
    podman(['kube', 'play', '--down', spec], { check: false });
    podman(['pod', 'rm', '-f', 'agent-gateway-pod-0'], { check: false });
  };
  cleanUp();
  let started;
  try {
    // `kube play` returns once the pod is started (after vfs copied the image).
    podman(['kube', 'play', '--replace', '--network', 'host', spec]);
    started = Date.now();
    const name = podman(['ps', '--filter', 'pod=agent-gateway-pod-0', '--format', '{{.Names}}']).stdout
      .split('\n').find((n) => n.endsWith('-gateway'));
    const container = { name, logs: () => podman(['logs', '--tail', '40', name], { check: false }).stdout };
    let ready = 0;
    while (ready !== 200 && Date.now() - started < READY_WITHIN_MS) {
      ready = await fetch(`${baseUrl}/health/ready`).then((r) => r.status, () => 0);
      if (ready !== 200) await sleep(200);
    }
    assert.equal(ready, 200, `the kube play pod is not ready within ${READY_WITHIN_MS / 1000} s:\n${name ? container.logs() : ''}`);
    const readyMs = Date.now() - started;
    checkConfinement(container, { dataWritable: false });
    await check401(baseUrl);
    process.stdout.write(`ok  kube play (deploy/kubernetes/overlays/dev): ready in ${(readyMs / 1000).toFixed(1)} s, uid 1000, read-only root, 401 as specified\n`);
  } finally {
    cleanUp();
    require('node:fs').rmSync(spec, { force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
