#!/usr/bin/env node
/**
 * Screenshots of the dashboard's main pages for docs/dashboard.md, taken from the running service
 * so they stay current: `npm run docs:screenshots` (builds first). Starts the built service on
 * 127.0.0.1 with a fresh embedded database in a temporary folder, fills an organisation through
 * the public REST API and the dashboard's own forms, photographs each page in Debian's Chromium
 * (light mode, and the Projects page in dark mode too) into docs/images/, and stops everything.
 * Secrets on the pages (the derived token, the snippets that carry it) are blanked out in the
 * images: the pages show them, the pictures in the repository never do.
 */
const { spawn } = require('node:child_process');
const { mkdirSync, mkdtempSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { chromium } = require('playwright-core');

const root = join(__dirname, '..');
const outDir = join(root, 'docs', 'images');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(base, service) {
  for (let i = 0; i < 240; i++) {
    if (service.exitCode !== null) throw new Error(`the service exited with ${service.exitCode}`);
    try {
      if ((await fetch(`${base}/health/ready`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the service did not become ready within 60 s');
}

async function api(base, method, path, token, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'ag-screenshots-'));
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', BASE_URL: base, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL; // always the embedded database
  const service = spawn(process.execPath, [join(root, 'dist/apps/gateway/src/main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let browser;
  try {
    await waitReady(base, service);
    const signup = await api(base, 'POST', '/api/auth/signup', undefined, {
      email: 'ada@example.com',
      password: 'correct horse battery staple',
      name: 'Ada Lovelace',
      organizationName: 'Acme Robotics',
    });
    const jwt = signup.accessToken;
    const org = signup.organization.id;
    const website = await api(base, 'POST', `/api/organizations/${org}/projects`, jwt, { name: 'Website relaunch' });
    const inventory = await api(base, 'POST', `/api/organizations/${org}/projects`, jwt, { name: 'Inventory' });
    const key = await api(base, 'POST', `/api/organizations/${org}/agent-service-keys`, jwt, { name: 'deploy bot' });
    await api(base, 'POST', `/api/organizations/${org}/api-keys`, jwt, { name: 'nightly report', permissions: ['projects:read', 'audit:read'] });
    await api(base, 'POST', `/api/organizations/${org}/members`, jwt, { email: 'grace@example.com', role: 'member' });

    mkdirSync(outDir, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, deviceScaleFactor: 1 });
    await context.addCookies([{ name: 'ag_session', value: jwt, url: base, httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    const blankSecrets = () =>
      page.evaluate(() => {
        const scope = globalThis;
        for (const field of scope.document.querySelectorAll('input[readonly], textarea[readonly]')) {
          field.value = field.value.replace(/(dga|dgr|rk|dgi|dgp|dgs)_[A-Za-z0-9_-]{8,}/g, '$1_••••••••••••••••');
        }
      });
    const shoot = async (name, path) => {
      if (path) await page.goto(`${base}${path}`);
      await blankSecrets();
      await page.screenshot({ path: join(outDir, `dashboard-${name}.png`), fullPage: true });
      process.stdout.write(`docs/images/dashboard-${name}.png\n`);
    };

    const orgPath = `/orgs/${org}`;
    await shoot('projects', `${orgPath}/projects`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot('projects-dark', `${orgPath}/projects`);
    await page.emulateMedia({ colorScheme: 'light' });
    await shoot('service-keys', `${orgPath}/service-keys`);
    await page.goto(`${base}${orgPath}/service-keys/${key.id}`);
    await page.getByLabel('Project').selectOption({ label: website.name });
    await page.getByRole('button', { name: 'Derive token' }).click();
    await page.waitForLoadState('load');
    await shoot('derived-token');
    await shoot('api-keys', `${orgPath}/api-keys`);
    await shoot('connected-clients', `${orgPath}/clients`);
    await shoot('members', `${orgPath}/members`);
    await shoot('audit-log', `${orgPath}/audit`);

    // A machine's delete held by an approve rule: the approval page an admin opens from the link.
    await api(base, 'PUT', `/api/organizations/${org}/policy`, jwt, {
      version: 0,
      rules: [{ id: 'machine-deletes-need-an-admin', description: 'Deletes by machines need an admin', risk: ['destructive'], credentialKinds: ['derived'], effect: 'approve', approval: { approvers: 'admins' } }],
    });
    const { token } = await api(base, 'POST', `/api/organizations/${org}/agent-service-keys/${key.id}/tokens`, jwt, { projectId: inventory.id });
    const mcp = async (name, args) => {
      const res = await fetch(`${base}/api/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      });
      const text = await res.text();
      // The answer may come as one server-sent event.
      const json = text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data: '))?.slice(6);
      if (!json) throw new Error(`tools/call ${name} answered ${res.status}: ${text.slice(0, 300)}`);
      const answer = JSON.parse(json);
      if (!answer.result) throw new Error(`tools/call ${name} answered ${JSON.stringify(answer.error)}`);
      return answer.result;
    };
    const created = (await mcp('create_task', { title: 'Old stock count' })).structuredContent;
    const held = await mcp('delete_task', { id: (created.task ?? created).id });
    const approvalUrl = /(http\S+\/approvals\/[0-9a-f-]{36})/.exec(held.content[0].text)[1];
    await page.goto(approvalUrl);
    await shoot('approval');
  } finally {
    await browser?.close();
    service.kill('SIGTERM');
    await new Promise((r) => (service.exitCode !== null ? r() : service.once('exit', r)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
