import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { CallbackServer } from './callback-server';
import { Chromium, launchChromium } from './chromium';
import { DocumentServer } from './document-server';
import { GatewayProcess, startGatewayProcess } from './gateway-process';
import { freePort } from './postgres-server';
import { ClonedDatabase, cloneTemplateDatabase } from './template-database';
import { readTestState, testDatabaseKind } from './test-state';

/**
 * The service as its own process, for the SDK clients that identify themselves with a Client ID
 * Metadata Document: the documents are served over https on this machine under the name
 * `localhost`, with a certificate made for the test that the service trusts through
 * `NODE_EXTRA_CA_CERTS` (as a deployment trusts its CAs), and CLIENT_METADATA_ALLOW_LOOPBACK=true.
 * On PostgreSQL the process gets its own database, made from the test template.
 */
export interface SdkGateway {
  gateway: GatewayProcess;
  documents: DocumentServer;
  close(): Promise<void>;
}

export async function startSdkGateway(): Promise<SdkGateway> {
  const certDir = mkdtempSync(join(tmpdir(), 'ag-cimd-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(certDir, 'key.pem'),
    '-out', join(certDir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
  const documents = await DocumentServer.start({ tls: { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) } });

  const port = await freePort();
  const env: Record<string, string> = {
    BASE_URL: `http://127.0.0.1:${port}`,
    SESSION_SECRET: randomBytes(32).toString('hex'),
    CLIENT_METADATA_ALLOW_LOOPBACK: 'true',
    NODE_EXTRA_CA_CERTS: join(certDir, 'cert.pem'),
  };
  let database: ClonedDatabase | undefined;
  if (testDatabaseKind() === 'postgres') {
    database = await cloneTemplateDatabase(readTestState().postgres!.port, 'cimd');
    env.DATABASE_URL = database.url;
  }
  const gateway = await startGatewayProcess(port, env);
  return {
    gateway,
    documents,
    async close() {
      await gateway.stop();
      await database?.drop();
      await documents.close();
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}

/**
 * What a Client ID Metadata Document spec runs against: the redirect catcher, the service with its
 * https document server, a public client's document at `path` named `clientName` (its URL is
 * `clientId`), and Chromium for the person's consent. `close` ends them all.
 */
export interface CimdSetup {
  callback: CallbackServer;
  sdk: SdkGateway;
  clientId: string;
  browser: Chromium;
  close(): Promise<void>;
}

export async function startCimdSetup(path: string, clientName: string): Promise<CimdSetup> {
  const callback = await CallbackServer.start();
  let sdk: SdkGateway | undefined;
  try {
    sdk = await startSdkGateway();
    const clientId = sdk.documents.json(
      path,
      (url) => ({
        client_id: url,
        client_name: clientName,
        redirect_uris: [callback.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      }),
      { 'cache-control': 'max-age=600' },
    );
    const browser = await launchChromium();
    const gateway = sdk;
    return {
      callback,
      sdk,
      clientId,
      browser,
      async close() {
        await browser.close();
        await gateway.close();
        await callback.close();
      },
    };
  } catch (error) {
    await sdk?.close();
    await callback.close();
    throw error;
  }
}

/** A JSON request to the service, with a bearer token if given. */
export async function gatewayJson(baseUrl: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** What the consent page showed about the client. */
export interface ConsentShown {
  host?: string;
  newClient?: boolean;
}

/**
 * The redirect step as the person does it in Chromium: open the authorization URL, sign in,
 * see "Allow <client> to use Agent Gateway?", pick the project, approve; resolves once the
 * browser has reached the client's redirect URI. Records what the page said in `shown`.
 */
export function consentInChromium(
  context: BrowserContext,
  callback: CallbackServer,
  person: { email: string; password: string },
  choice: { clientName: string; projectName: string },
  shown: ConsentShown = {},
): (url: URL) => Promise<void> {
  return async (url: URL) => {
    await context.clearCookies();
    const page = await context.newPage();
    await page.goto(url.href);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: `Allow ${choice.clientName} to use Agent Gateway?` }).waitFor();
    const host = page.locator('#client-id-host code');
    shown.host = (await host.count()) > 0 ? ((await host.textContent()) ?? undefined) : undefined;
    shown.newClient = await page.locator('#consent-new-client').isVisible();
    await page.getByRole('radio', { name: choice.projectName }).check();
    const received = callback.next();
    await page.getByRole('button', { name: 'Approve' }).click();
    await received;
    await page.waitForLoadState('load');
    await page.close();
  };
}
