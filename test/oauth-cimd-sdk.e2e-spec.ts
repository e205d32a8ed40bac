import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as PgClient } from 'pg';
import type { BrowserContext } from 'playwright-core';
import { CallbackServer } from './helpers/callback-server';
import { chromiumAvailable, launchChromium } from './helpers/chromium';
import { GatewayProcess, startGatewayProcess } from './helpers/gateway-process';
import { TestOAuthProvider } from './helpers/oauth-provider';
import { freePort } from './helpers/postgres-server';
import { readTestState, testDatabaseKind } from './helpers/test-state';

const describeBrowser = chromiumAvailable() ? describe : describe.skip;

/**
 * The official MCP SDK v2 client identified by a Client ID Metadata Document
 * (`clientMetadataUrl` in its OAuth provider): no registration. The document is served over
 * https on this machine under the name `localhost` with a certificate made for the test; the
 * service runs as its own process trusting that certificate (`NODE_EXTRA_CA_CERTS`, as a
 * deployment trusts its CAs) with CLIENT_METADATA_ALLOW_LOOPBACK=true. The person signs in and
 * consents in Chromium.
 */
describeBrowser('the MCP SDK v2 client with clientMetadataUrl, consent in Chromium', () => {
  let gateway: GatewayProcess;
  let documents: Server;
  let documentsPort: number;
  let callback: CallbackServer;
  let browser: { context: BrowserContext; close(): Promise<void> };
  let certDir: string;
  let dropDatabase: (() => Promise<void>) | undefined;
  let documentHits = 0;

  beforeAll(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'ag-cimd-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(certDir, 'key.pem'),
      '-out', join(certDir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
    callback = await CallbackServer.start();
    documents = createServer({ key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) }, (req, res) => {
      if (req.url !== '/mcp-client.json') return void res.writeHead(404).end();
      documentHits += 1;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }).end(
        JSON.stringify({
          client_id: `https://localhost:${documentsPort}/mcp-client.json`,
          client_name: 'SDK Metadata Client',
          redirect_uris: [callback.redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    documentsPort = (documents.address() as AddressInfo).port;

    const port = await freePort();
    const env: Record<string, string> = {
      BASE_URL: `http://127.0.0.1:${port}`,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      CLIENT_METADATA_ALLOW_LOOPBACK: 'true',
      NODE_EXTRA_CA_CERTS: join(certDir, 'cert.pem'),
    };
    if (testDatabaseKind() === 'postgres') {
      const { postgres } = readTestState();
      const name = `cimd_${randomUUID().replace(/-/g, '')}`;
      const adminUrl = `postgres://postgres@127.0.0.1:${postgres!.port}/postgres`;
      const admin = async (sql: string) => {
        const c = new PgClient({ connectionString: adminUrl });
        await c.connect();
        await c.query(sql);
        await c.end();
      };
      await admin(`CREATE DATABASE ${name} TEMPLATE ag_template`);
      dropDatabase = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      env.DATABASE_URL = `postgres://postgres@127.0.0.1:${postgres!.port}/${name}`;
    }
    gateway = await startGatewayProcess(port, env);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await dropDatabase?.();
    await callback?.close();
    await new Promise<void>((resolve) => (documents ? documents.close(() => resolve()) : resolve()));
    rmSync(certDir, { recursive: true, force: true });
  });

  async function json(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
    const res = await fetch(`${gateway.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it('connects without registering: discovery, sign-in and consent in Chromium, tools/call, refresh', async () => {
    const email = `cimd-${randomUUID().slice(0, 8)}@example.test`;
    const password = `pw-${randomUUID()}`;
    const signup = await json('/api/auth/signup', { method: 'POST', body: { email, password, name: 'Casey', organizationName: 'Cimd Org' } });
    expect(signup.status).toBe(201);
    const orgId = signup.body.organization.id as string;
    const project = await json(`/api/organizations/${orgId}/projects`, { method: 'POST', token: signup.body.accessToken, body: { name: 'Metadata project' } });
    expect(project.status).toBe(201);

    const clientId = `https://localhost:${documentsPort}/mcp-client.json`;
    const serverUrl = new URL(`${gateway.url}/api/mcp`);
    const consentShown: { host?: string; newClient?: boolean } = {};
    const consentInChromium = async (url: URL) => {
      await browser.context.clearCookies();
      const page = await browser.context.newPage();
      await page.goto(url.href);
      await page.waitForURL(/\/login\?next=/);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Allow SDK Metadata Client to use Agent Gateway?' }).waitFor();
      consentShown.host = (await page.locator('#client-id-host code').textContent()) ?? undefined;
      consentShown.newClient = await page.locator('#consent-new-client').isVisible();
      await page.getByRole('radio', { name: 'Metadata project' }).check();
      const received = callback.next();
      await page.getByRole('button', { name: 'Approve' }).click();
      await received;
      await page.waitForLoadState('load');
      await page.close();
    };
    const provider = new TestOAuthProvider({
      clientMetadataUrl: clientId,
      redirectUri: callback.redirectUri,
      clientName: 'SDK Metadata Client',
      state: 'cimd-state',
      authorize: consentInChromium,
    });

    // Discovery advertises metadata documents, so the SDK uses the URL as client_id and never registers.
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.clientInformation()?.client_id).toBe(clientId);
    expect(provider.authorizationUrl!.searchParams.get('client_id')).toBe(clientId);
    expect(consentShown).toEqual({ host: `localhost:${documentsPort}`, newClient: true });

    const back = callback.received[callback.received.length - 1];
    expect(back.searchParams.get('state')).toBe('cimd-state');
    expect(await auth(provider, { serverUrl, authorizationCode: back.searchParams.get('code')!, iss: back.searchParams.get('iss')! })).toBe('AUTHORIZED');
    const first = provider.tokens()!;
    expect(first.access_token).toMatch(/^dga_/);
    expect(first.refresh_token).toMatch(/^dgr_/);

    const mcp = new Client({ name: 'cimd-sdk-e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const result = await mcp.callTool({ name: 'get_project', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: project.body.id, name: 'Metadata project', organization: { id: orgId, name: 'Cimd Org' } });
    await mcp.close();

    // Refresh through the SDK: a new pair, and the new access token works.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    const refreshed = provider.tokens()!;
    expect(refreshed.refresh_token).toMatch(/^dgr_/);
    expect(refreshed.access_token).not.toBe(first.access_token);
    const again = new Client({ name: 'cimd-sdk-e2e', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    expect((await again.callTool({ name: 'get_project', arguments: {} })).isError).toBeFalsy();
    await again.close();

    // The document was fetched once and served every later step from the cache; no client registered.
    expect(documentHits).toBe(1);
    const grants = await json('/api/me/agent-grants', { token: signup.body.accessToken });
    expect(grants.body).toEqual([expect.objectContaining({ client: { id: clientId, name: 'SDK Metadata Client' } })]);
  });
});
