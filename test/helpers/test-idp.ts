/**
 * The tests' identity provider: panva's oidc-provider (a certified OpenID provider) in this process
 * on 127.0.0.1 (http, ephemeral port), as an organisation's enterprise IdP. It imports nothing from
 * the gateway. docs/testing.md, "The test identity provider", says what it offers.
 *
 * - OpenID Connect: discovery, JWKS, authorization code with PKCE S256 required, `nonce`, claims
 *   `email`, `email_verified` (scope `email`), `name` (scope `profile`), the groups claim (name
 *   configurable; with `groupsScope`, only when that scope is asked for) and `tenant` (always, when
 *   the account has them). Consent is given automatically.
 * - Sign-in: the login page (`/interaction/:uid`) asks for the account's subject; Chromium fills
 *   `input[name=login]` and clicks `button[type=submit]`. `signInWithoutBrowser` does the same over
 *   plain HTTP and returns the redirect to the relying party (with `code` and `state`), unfollowed.
 * - Token exchange (RFC 8693) issuing ID-JAGs (IETF draft "Identity Assertion JWT Authorization
 *   Grant", MCP extension "Enterprise-Managed Authorization") to an authenticated client:
 *   `subject_token` must be an ID token of this IdP for that client, signed by the current key and
 *   unexpired; `audience` and `resource` are required (the extension requires `resource`). The
 *   ID-JAG (header `typ` oauth-id-jag+jwt, current key): iss, sub, aud = audience, client_id (the
 *   client's `idJagClientId`, else its id), jti, iat, exp (+300 s), resource, scope (as requested),
 *   tenant and email (from the account). Refusals: 400 `invalid_request` / `invalid_grant` with a
 *   description naming the problem, 401 `invalid_client`.
 *
 * How the MCP SDK v2 client does Enterprise-Managed Authorization (`@modelcontextprotocol/client`
 * 2.4; checked by running it against this IdP and a recording authorization server):
 *
 *   import { CrossAppAccessProvider, discoverAndRequestJwtAuthGrant, StreamableHTTPClientTransport }
 *     from '@modelcontextprotocol/client';
 *   const authProvider = new CrossAppAccessProvider({
 *     clientId, clientSecret,          // the client at OUR authorization server (confidential)
 *     expectedIssuer: gatewayIssuer,   // must equal our AS metadata `issuer` (credentials go nowhere else)
 *     assertion: async (ctx) => (await discoverAndRequestJwtAuthGrant({
 *       idpUrl: idp.issuer, idToken,   // e.g. (await idp.obtainTokens({ clientId: idpClientId, ... })).id_token
 *       clientId: idpClientId, clientSecret: idpClientSecret,   // the client at the IdP
 *       audience: ctx.authorizationServerUrl, resource: ctx.resourceUrl, scope: ctx.scope,
 *       fetchFn: ctx.fetchFn,
 *     })).jwtAuthGrant,
 *   });
 *   new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { authProvider });  // or auth(authProvider, { serverUrl })
 *
 * - On the MCP endpoint's 401, `auth()` reads our protected resource metadata (RFC 9728), then our
 *   AS metadata. It calls `assertion` with authorizationServerUrl = our AS metadata's `issuer`
 *   (exactly, no slash added), resourceUrl = the metadata's `resource`, scope = the 401's
 *   WWW-Authenticate `scope`, else the resource metadata's `scopes_supported` joined by spaces.
 * - Token exchange at the IdP (`requestJwtAuthorizationGrant`, after discovery from
 *   `/.well-known/oauth-authorization-server`, falling back to `/.well-known/openid-configuration`):
 *   form POST with grant_type token-exchange, requested_token_type id-jag, audience, resource,
 *   subject_token (the ID token), subject_token_type id_token, `client_id` and `client_secret` IN
 *   THE BODY (client_secret_post), `scope` if any. It needs `issued_token_type` = id-jag and
 *   `access_token`; an error answer becomes `Error('Token exchange failed: <error> - <description>')`.
 *   Endpoints must be https or loopback (127.0.0.1, localhost, ::1).
 * - Then at our token endpoint: form POST grant_type `urn:ietf:params:oauth:grant-type:jwt-bearer`,
 *   `assertion` (the ID-JAG), `scope` (as above) and `resource` (our MCP resource URL), with
 *   client_secret_basic (Authorization: Basic) when our metadata's
 *   `token_endpoint_auth_methods_supported` lists it or is absent, else client_secret_post. No
 *   registration, no redirect, no refresh token expected. `exchangeJwtAuthGrant({ tokenEndpoint,
 *   jwtAuthGrant, clientId, clientSecret, authMethod })` does that step alone (basic by default).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  JWK,
  JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import type { KoaContextWithOIDC, default as ProviderClass } from 'oidc-provider';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
export const ID_JAG_TYP = 'oauth-id-jag+jwt';

export interface TestIdpOptions {
  /** Name of the groups claim in ID tokens (default `groups`). */
  groupsClaim?: string;
  /**
   * A scope that alone releases the groups claim (as Okta's and Entra's `groups`): then an ID
   * token carries groups only when the authorization request asks for it. Default: none, the
   * groups claim comes with `openid`.
   */
  groupsScope?: string;
  /** ID-JAG lifetime in seconds (default 300). */
  idJagTtl?: number;
}

export interface TestIdpAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
  tenant?: string;
}

export interface TestIdpClient {
  clientId: string;
  clientSecret: string;
  redirectUris?: string[];
  /** `client_id` put in the ID-JAGs this client gets: its id at the resource authorization server (default: clientId). */
  idJagClientId?: string;
  /** Registered method; both client_secret_basic and client_secret_post are accepted either way. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

export interface IdpTokens {
  id_token: string;
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  nonce: string;
}

export type JwtHeader = Record<string, unknown>;
/** Changes claims/header in place (or returns new claims). */
export type JwtPatch = (claims: JWTPayload & Record<string, unknown>, header: JwtHeader) => void | Record<string, unknown>;
/** `current`: the IdP's signing key; `foreign`: an RSA key not in its JWKS; `none`: alg none; `hs256`: HMAC with `secret`. */
export type SigningChoice = 'current' | 'foreign' | 'none' | 'hs256';

export interface TestIdp {
  /** `http://127.0.0.1:PORT`; endpoints: `/auth`, `/token`, `/jwks`, `/me`, discovery at `/.well-known/openid-configuration`. */
  issuer: string;
  /** Registers a confidential client (authorization code when it has redirect URIs, and the token exchange). */
  addClient(client: TestIdpClient): Promise<void>;
  /**
   * Adds a redirect URI to a client registered with redirect URIs (as an admin adds an
   * organisation's own redirect URI at the IdP); nothing for an unknown client or one without any.
   */
  allowRedirectUri(clientId: string, uri: string): Promise<void>;
  /** Creates or replaces the account with this subject (its claims are read at each sign-in). */
  setAccount(sub: string, account: TestIdpAccount): void;
  /** Performs the IdP side of an authorization request; returns the redirect to the relying party. */
  signInWithoutBrowser(authorizeUrl: string, sub: string): Promise<string>;
  /**
   * The whole code flow with PKCE for a client of this IdP (its first redirect URI, never
   * contacted), as an AI client signing its person in: the token response, with the nonce sent.
   */
  obtainTokens(request: { clientId: string; clientSecret: string; sub: string; scope?: string }): Promise<IdpTokens>;
  /** A new signing key (new kid) becomes current; the old one leaves the JWKS. */
  rotateKeys(): Promise<void>;
  /** Kid of the current signing key (the only one in the JWKS). */
  currentKid(): string;
  /** The next token response's `id_token` is re-signed (with `key`, default the current one) after `patch`. */
  tamperNextIdToken(patch: JwtPatch, key?: SigningChoice): void;
  /** The next ID-JAG is signed (with `key`) after `patch` of its claims and header. */
  tamperNextIdJag(patch: JwtPatch, key?: SigningChoice): void;
  /** A raw JWT: header `alg` (and `kid` for RSA keys) set from `key` unless `header` gives them. */
  signJwt(claims: Record<string, unknown>, header?: JwtHeader, options?: { key?: SigningChoice; secret?: string }): Promise<string>;
  /** Fields that replace the discovery document's from now on (`undefined` removes one), e.g. no S256. */
  patchDiscovery(fields: Record<string, unknown>): void;
  /** Closes the server and its connections. */
  stop(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateJwk: JWK;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  publicJwk: JWK;
}

async function newSigningKey(prefix: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `${prefix}-${randomBytes(6).toString('hex')}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateJwk, privateKey, publicJwk };
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const html = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const now = (): number => Math.floor(Date.now() / 1000);

/** Loads oidc-provider (ES module), hiding its one-off notice that Node 20 is not its target line. */
async function loadOidcProvider(): Promise<{
  Provider: typeof ProviderClass;
  createMemoryAdapter: (tolerance?: number) => (model: string) => unknown;
}> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('Unsupported runtime')) warn(...args);
  };
  try {
    const { default: Provider } = await import('oidc-provider');
    const { createMemoryAdapter } = await import('oidc-provider/lib/adapters/memory_adapter.js');
    return { Provider, createMemoryAdapter };
  } finally {
    console.warn = warn;
  }
}

function readBody(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

function loginPage(uid: string, clientId: string, loginHint: string, error?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider: sign in</title></head>
<body><h1>Sign in to the test identity provider</h1><p>Client: ${html(clientId)}</p>
${error ? `<p role="alert">${html(error)}</p>` : ''}
<form method="post" action="/interaction/${html(uid)}">
<label for="login">Subject</label> <input id="login" name="login" required autofocus value="${html(loginHint)}">
<button type="submit">Sign in</button></form></body></html>`;
}

export async function startTestIdp(options: TestIdpOptions = {}): Promise<TestIdp> {
  const { Provider, createMemoryAdapter } = await loadOidcProvider();
  const groupsClaim = options.groupsClaim ?? 'groups';
  const idJagTtl = options.idJagTtl ?? 300;
  const accounts = new Map<string, TestIdpAccount>();
  const idJagClientIds = new Map<string, string>();
  const redirectUris = new Map<string, string[]>();
  const clients = new Map<string, TestIdpClient>();
  const adapter = createMemoryAdapter(0); // shared by every provider instance: survives key rotation
  const cookieKeys = [randomBytes(32).toString('base64url')];
  let foreignKey: Promise<SigningKey> | undefined; // made when first used: RSA key generation is slow
  let signingKey = await newSigningKey('idp');
  let idTokenTamper: { patch: JwtPatch; key: SigningChoice } | undefined;
  let idJagTamper: { patch: JwtPatch; key: SigningChoice } | undefined;
  let discoveryPatch: Record<string, unknown> = {};
  let provider: ProviderClass;
  let handle: (req: IncomingMessage, res: ServerResponse) => void;

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (/^\/interaction\/[^/]+$/.test(path)) {
      loginInteraction(req, res).catch((err: unknown) => {
        res.statusCode = 400;
        res.setHeader('content-type', 'text/plain');
        res.end(`Sign-in failed: ${(err as Error).message}`);
      });
      return;
    }
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function signJwt(
    claims: Record<string, unknown>,
    header: JwtHeader = {},
    { key = 'current', secret }: { key?: SigningChoice; secret?: string } = {},
  ): Promise<string> {
    if (key === 'none') return `${b64({ ...header, alg: 'none' })}.${b64(claims)}.`;
    if (key === 'hs256') {
      const hmac = new TextEncoder().encode(secret ?? randomBytes(32).toString('hex'));
      return new SignJWT(claims).setProtectedHeader({ ...header, alg: 'HS256' }).sign(hmac);
    }
    const k = key === 'foreign' ? await (foreignKey ??= newSigningKey('foreign')) : signingKey;
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: k.kid, ...header }).sign(k.privateKey);
  }

  async function resign(jwt: string, change: { patch: JwtPatch; key: SigningChoice }): Promise<string> {
    const claims = decodeJwt(jwt) as JWTPayload & Record<string, unknown>;
    const header = { ...decodeProtectedHeader(jwt) } as JwtHeader;
    const replaced = change.patch(claims, header);
    return signJwt(replaced ?? claims, header, { key: change.key });
  }

  async function loginInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const clientId = String(details.params.client_id ?? '');
    const send = (status: number, body: string): void => {
      res.statusCode = status;
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.setHeader('cache-control', 'no-store');
      res.end(body);
    };
    if (req.method === 'GET') return send(200, loginPage(details.uid, clientId, String(details.params.login_hint ?? '')));
    if (req.method !== 'POST') return send(405, 'Method not allowed');
    const sub = (await readBody(req)).get('login')?.trim() ?? '';
    if (!accounts.has(sub)) return send(400, loginPage(details.uid, clientId, sub, `No account "${sub}" at this identity provider.`));
    await provider.interactionFinished(req, res, { login: { accountId: sub } }, { mergeWithLastSubmission: false });
  }

  /** RFC 8693 token exchange: an ID token of this IdP for an ID-JAG. */
  async function tokenExchange(ctx: KoaContextWithOIDC): Promise<void> {
    const p = ctx.oidc.params as Record<string, string | undefined>;
    const client = ctx.oidc.client!;
    const refuse = (error: string, description: string): void => {
      ctx.status = 400;
      ctx.body = { error, error_description: description };
    };
    for (const name of ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource']) {
      if (!p[name]) return refuse('invalid_request', `${name} is required`);
    }
    if (p.subject_token_type !== ID_TOKEN_TYPE) return refuse('invalid_request', `subject_token_type must be ${ID_TOKEN_TYPE}`);
    if (p.requested_token_type !== ID_JAG_TYPE) return refuse('invalid_request', `requested_token_type must be ${ID_JAG_TYPE}`);
    let subject: JWTPayload;
    try {
      const jwks = createLocalJWKSet({ keys: [signingKey.publicJwk] });
      ({ payload: subject } = await jwtVerify(p.subject_token!, jwks, {
        issuer,
        audience: client.clientId,
        algorithms: ['RS256'],
      }));
    } catch (err) {
      return refuse('invalid_grant', `subject_token is not a valid ID token of this identity provider for this client: ${(err as Error).message}`);
    }
    const sub = String(subject.sub);
    const account = accounts.get(sub) ?? {};
    const iat = now();
    let claims: Record<string, unknown> = {
      iss: issuer,
      sub,
      aud: p.audience,
      client_id: idJagClientIds.get(client.clientId) ?? client.clientId,
      jti: randomUUID(),
      iat,
      exp: iat + idJagTtl,
      resource: p.resource,
      ...(p.scope ? { scope: p.scope } : {}),
      ...(account.tenant !== undefined ? { tenant: account.tenant } : {}),
      ...(account.email !== undefined ? { email: account.email } : {}),
    };
    let header: JwtHeader = { typ: ID_JAG_TYP };
    let key: SigningChoice = 'current';
    if (idJagTamper) {
      const change = idJagTamper;
      idJagTamper = undefined;
      claims = change.patch(claims, header) ?? claims;
      key = change.key;
    }
    ctx.status = 200;
    ctx.body = {
      issued_token_type: ID_JAG_TYPE,
      access_token: await signJwt(claims, header, { key }),
      token_type: 'N_A',
      expires_in: idJagTtl,
      ...(p.scope ? { scope: p.scope } : {}),
    };
  }

  function build(): void {
    const instance = new Provider(issuer, {
      adapter,
      jwks: { keys: [signingKey.privateJwk] },
      cookies: { keys: cookieKeys },
      clientBasedCORS: () => true,
      conformIdTokenClaims: false,
      claims: {
        openid: ['sub', 'tenant', ...(options.groupsScope ? [] : [groupsClaim])],
        email: ['email', 'email_verified'],
        profile: ['name'],
        ...(options.groupsScope ? { [options.groupsScope]: [groupsClaim] } : {}),
      },
      scopes: ['openid', 'email', 'profile', 'offline_access', ...(options.groupsScope ? [options.groupsScope] : [])],
      responseTypes: ['code'],
      pkce: { required: () => true },
      features: {
        devInteractions: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        introspection: { enabled: false },
        revocation: { enabled: false },
      },
      discovery: { identity_chaining_requested_token_types_supported: [ID_JAG_TYPE] },
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
      async findAccount(_ctx: unknown, sub: string) {
        const account = accounts.get(sub);
        if (!account) return undefined;
        return {
          accountId: sub,
          claims: async () => {
            const all: Record<string, unknown> = {
              sub,
              email: account.email,
              email_verified: account.email_verified,
              name: account.name,
              [groupsClaim]: account.groups,
              tenant: account.tenant,
            };
            return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
          },
        };
      },
      // Consent is given at once: a grant covering what the client asked for.
      async loadExistingGrant(ctx: KoaContextWithOIDC) {
        const { client, session, result, params } = ctx.oidc;
        const grantId = result?.consent?.grantId ?? session?.grantIdFor(client!.clientId);
        const grant =
          (grantId && (await ctx.oidc.provider.Grant.find(grantId))) ||
          new ctx.oidc.provider.Grant({ clientId: client!.clientId, accountId: session?.accountId });
        grant.addOIDCScope(String(params.scope ?? 'openid'));
        await grant.save();
        return grant;
      },
      async renderError(ctx: KoaContextWithOIDC, out: Record<string, string>) {
        ctx.type = 'html';
        ctx.body = `<!doctype html><title>Test identity provider: error</title><h1>${html(out.error ?? 'error')}</h1><p>${html(out.error_description ?? '')}</p>`;
      },
    });
    instance.registerGrantType(TOKEN_EXCHANGE_GRANT, tokenExchange, [
      'subject_token',
      'subject_token_type',
      'requested_token_type',
      'audience',
      'resource',
      'scope',
      'actor_token',
      'actor_token_type',
    ]);
    instance.use(async (ctx, next) => {
      await next();
      if (ctx.path === '/.well-known/openid-configuration' && ctx.status === 200) {
        const document: Record<string, unknown> = { ...(ctx.body as Record<string, unknown>), ...discoveryPatch };
        ctx.body = Object.fromEntries(Object.entries(document).filter(([, v]) => v !== undefined));
      }
      const body = ctx.body as { id_token?: string } | undefined;
      if (ctx.method === 'POST' && ctx.path === '/token' && ctx.status === 200 && body?.id_token && idTokenTamper) {
        const change = idTokenTamper;
        idTokenTamper = undefined;
        ctx.body = { ...body, id_token: await resign(body.id_token, change) };
      }
    });
    instance.on('server_error', (_ctx: unknown, err: Error) => console.error('test identity provider: server error', err));
    provider = instance;
    handle = instance.callback();
  }
  build();

  const idp: TestIdp = {
    issuer,
    async addClient(client) {
      clients.set(client.clientId, client);
      if (client.idJagClientId) idJagClientIds.set(client.clientId, client.idJagClientId);
      redirectUris.set(client.clientId, client.redirectUris ?? []);
      await provider.Client.adapter.upsert(client.clientId, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: client.redirectUris ?? [],
        response_types: client.redirectUris?.length ? ['code'] : [],
        grant_types: client.redirectUris?.length ? ['authorization_code', TOKEN_EXCHANGE_GRANT] : [TOKEN_EXCHANGE_GRANT],
        token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? 'client_secret_basic',
      });
    },
    async allowRedirectUri(clientId, uri) {
      const client = clients.get(clientId);
      if (!client?.redirectUris?.length || client.redirectUris.includes(uri)) return;
      await idp.addClient({ ...client, redirectUris: [...client.redirectUris, uri] });
    },
    setAccount(sub, account) {
      accounts.set(sub, { ...account });
    },
    async signInWithoutBrowser(authorizeUrl, sub) {
      const jar = new Map<string, string>();
      let url = authorizeUrl;
      let body: URLSearchParams | undefined;
      for (let step = 0; step < 10; step++) {
        const res = await fetch(url, {
          method: body ? 'POST' : 'GET',
          redirect: 'manual',
          headers: {
            cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
            ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
          body,
        });
        for (const cookie of res.headers.getSetCookie()) {
          const [pair, ...attrs] = cookie.split(';');
          const eq = pair.indexOf('=');
          const name = pair.slice(0, eq).trim();
          const value = pair.slice(eq + 1).trim();
          const expired = attrs.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]) < Date.now());
          if (!value || expired) jar.delete(name);
          else jar.set(name, value);
        }
        const location = res.headers.get('location');
        if (res.status >= 300 && res.status < 400 && location) {
          await res.arrayBuffer();
          const next = new URL(location, url).href;
          if (new URL(next).origin !== issuer) return next;
          url = next;
          body = undefined;
          continue;
        }
        const text = await res.text();
        if (res.status === 200 && !body && new URL(url).pathname.startsWith('/interaction/')) {
          body = new URLSearchParams({ login: sub });
          continue;
        }
        const said = (/role="alert">([^<]*)</.exec(text)?.[1] ?? text.replace(/<[^>]+>/g, ' '))
          .replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c)))
          .replace(/\s+/g, ' ')
          .trim();
        throw new Error(`test identity provider: sign-in stopped with ${res.status} at ${new URL(url).pathname}: ${said}`);
      }
      throw new Error('test identity provider: sign-in did not come back to the relying party');
    },
    async obtainTokens({ clientId, clientSecret, sub, scope = 'openid email profile' }) {
      const redirectUri = redirectUris.get(clientId)?.[0];
      if (!redirectUri) throw new Error(`test identity provider: client ${clientId} has no redirect URI`);
      const verifier = randomBytes(32).toString('base64url');
      const nonce = randomBytes(12).toString('base64url');
      const authorize = new URL(`${issuer}/auth`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope,
        state: randomBytes(12).toString('base64url'),
        nonce,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      const back = new URL(await idp.signInWithoutBrowser(authorize.href, sub));
      const code = back.searchParams.get('code');
      if (!code) throw new Error(`test identity provider: no code (${back.searchParams.get('error_description') ?? back.search})`);
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          code_verifier: verifier,
          client_id: clientId,
          client_secret: clientSecret,
        }),
      });
      const body = (await res.json()) as Omit<IdpTokens, 'nonce'> & { error_description?: string };
      if (res.status !== 200) throw new Error(`test identity provider: token request refused (${body.error_description})`);
      return { ...body, nonce };
    },
    async rotateKeys() {
      signingKey = await newSigningKey('idp');
      build();
    },
    currentKid: () => signingKey.kid,
    tamperNextIdToken(patch, key = 'current') {
      idTokenTamper = { patch, key };
    },
    tamperNextIdJag(patch, key = 'current') {
      idJagTamper = { patch, key };
    },
    signJwt,
    patchDiscovery(fields) {
      discoveryPatch = { ...discoveryPatch, ...fields };
    },
    async stop() {
      RUNNING.delete(issuer);
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
  RUNNING.set(issuer, idp);
  return idp;
}

/** The test IdPs running in this process, by issuer. */
const RUNNING = new Map<string, TestIdp>();

/** The running test IdP of this issuer, if any (the helpers of `./identity` register redirect URIs there). */
export function runningTestIdp(issuer: string): TestIdp | undefined {
  return RUNNING.get(issuer);
}
