import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from '../helpers/test-app';
import { addMember, createOrganization, createProject, createUser } from './index';

/** A PKCE pair (RFC 7636, S256). */
export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export const TEST_REDIRECT_URI = 'http://127.0.0.1:8976/callback';

export interface RegisteredTestClient {
  client_id: string;
  client_secret?: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
}

/** Registers a client over HTTP (RFC 7591) and returns the registration response. */
export async function registerClient(baseUrl: string, metadata: Record<string, unknown> = {}): Promise<RegisteredTestClient> {
  const res = await fetch(`${baseUrl}/api/agent/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test Client', redirect_uris: [TEST_REDIRECT_URI], ...metadata }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as RegisteredTestClient;
}

/**
 * A minimal browser over fetch: keeps cookies, never follows redirects (the test reads each
 * Location itself), posts HTML forms url-encoded.
 */
export class TestBrowser {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async get(path: string): Promise<Response> {
    return this.send('GET', path);
  }

  async post(path: string, form: Record<string, string | string[] | undefined>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [key, value] of Object.entries(form)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) body.append(key, v);
    }
    return this.send('POST', path, body.toString());
  }

  private async send(method: string, path: string, body?: string): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: 'manual' });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Signs in through the HTML login page; returns the response of the form post. */
  async login(email: string, password: string, next = '/'): Promise<Response> {
    const page = await this.get(`/login?next=${encodeURIComponent(next)}`);
    const csrf = hiddenField(await page.text(), 'csrf_token');
    return this.post('/login', { email, password, next, csrf_token: csrf });
  }
}

/** The value of a hidden form field in an HTML page. */
export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no hidden field ${name} in page`);
  return match[1].replace(/&amp;/g, '&').replace(/&quot;/g, '"');
}

/** Every radio/checkbox value of a field in an HTML page, with whether it is checked. */
export function formChoices(html: string, name: string): { value: string; checked: boolean }[] {
  const re = new RegExp(`<input type="(?:radio|checkbox)" name="${name}" value="([^"]*)"([^>]*)>`, 'g');
  return [...html.matchAll(re)].map((m) => ({ value: m[1], checked: /\schecked\b/.test(m[2]) }));
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri?: string;
  response_type?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  state?: string;
  scope?: string;
  resource?: string;
}

export function authorizePath(params: AuthorizeParams | Record<string, string>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value);
  return `/api/agent/oauth/authorize?${query.toString()}`;
}

/** A person who belongs to an organisation with one project. */
export async function createPersonWithProject(t: TestApp, role: 'admin' | 'member' = 'member') {
  const user = await createUser(t.dataSource);
  const organization = await createOrganization(t.dataSource);
  const project = await createProject(t.dataSource, organization.id);
  await addMember(t.dataSource, organization.id, user.id, role);
  return { user, organization, project };
}

export interface ConsentPage {
  status: number;
  html: string;
  requestId: string;
  csrfToken: string;
}

/** Opens the authorize URL in a signed-in browser and reads the consent form. */
export async function openConsent(browser: TestBrowser, path: string): Promise<ConsentPage> {
  const res = await browser.get(path);
  const html = await res.text();
  if (res.status !== 200) throw new Error(`consent page: ${res.status} ${res.headers.get('location') ?? html.slice(0, 300)}`);
  return { status: res.status, html, requestId: hiddenField(html, 'request_id'), csrfToken: hiddenField(html, 'csrf_token') };
}

/** The query parameters of a redirect Location. */
export function redirectParams(res: Response): URLSearchParams {
  const location = res.headers.get('location');
  if (!location) throw new Error(`expected a redirect, got ${res.status}`);
  return new URL(location).searchParams;
}

/**
 * The whole front channel for one person: sign in, open consent, approve the given project and
 * permissions; returns the authorization code and the PKCE verifier.
 */
export async function authorizeCode(
  t: TestApp,
  options: {
    browser: TestBrowser;
    client: RegisteredTestClient;
    projectId: string;
    permissions?: string[];
    scope?: string;
    resource?: string;
    redirectUri?: string;
  },
) {
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(8).toString('hex');
  const redirectUri = options.redirectUri ?? options.client.redirect_uris[0];
  const consent = await openConsent(
    options.browser,
    authorizePath({
      response_type: 'code',
      client_id: options.client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      ...(options.scope ? { scope: options.scope } : {}),
      resource: options.resource ?? `${t.baseUrl}/api/mcp`,
    }),
  );
  const res = await options.browser.post('/api/agent/oauth/authorize', {
    request_id: consent.requestId,
    csrf_token: consent.csrfToken,
    project_id: options.projectId,
    permissions: options.permissions ?? ['project:read', 'tasks:read', 'tasks:write', 'tasks:delete'],
    decision: 'approve',
  });
  if (res.status !== 303) throw new Error(`consent failed: ${res.status} ${await res.text()}`);
  const params = redirectParams(res);
  if (params.get('state') !== state) throw new Error('state mismatch');
  return { code: params.get('code')!, verifier, redirectUri, state };
}

/** POSTs a form to the token endpoint; returns status, headers and JSON body. */
export async function tokenRequest(baseUrl: string, form: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) if (value !== undefined) body.set(key, value);
  const res = await fetch(`${baseUrl}/api/agent/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: body.toString(),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A signed-in browser, a project, a registered client and a token pair from the code flow. */
export async function connectClient(
  t: TestApp,
  options: { permissions?: string[]; clientMetadata?: Record<string, unknown> } = {},
) {
  const person = await createPersonWithProject(t);
  const browser = new TestBrowser(t.baseUrl);
  const login = await browser.login(person.user.email, person.user.password);
  if (login.status !== 303) throw new Error(`login failed: ${login.status}`);
  const client = await registerClient(t.baseUrl, options.clientMetadata);
  const { code, verifier, redirectUri } = await authorizeCode(t, {
    browser,
    client,
    projectId: person.project.id,
    permissions: options.permissions,
  });
  const tokens = await tokenRequest(t.baseUrl, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: redirectUri,
    client_id: client.client_id,
    resource: `${t.baseUrl}/api/mcp`,
  });
  if (tokens.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens.body)}`);
  return {
    ...person,
    browser,
    client,
    accessToken: tokens.body.access_token as string,
    refreshToken: tokens.body.refresh_token as string,
  };
}
