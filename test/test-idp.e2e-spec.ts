import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { discoverAndRequestJwtAuthGrant } from '@modelcontextprotocol/client';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { ID_JAG_TYP, ID_JAG_TYPE, ID_TOKEN_TYPE, startTestIdp, TestIdp, TOKEN_EXCHANGE_GRANT } from './helpers/test-idp';

/**
 * The tests' identity provider checked against the specifications with a plain HTTP client (no
 * gateway): OpenID Connect discovery and the code flow with PKCE, key rotation, and the ID-JAGs of
 * its token exchange against the claim table of the "Identity Assertion JWT Authorization Grant"
 * draft and RFC 8693's response.
 */
const REDIRECT = 'http://127.0.0.1:9/auth/sso/callback';
const AS_ISSUER = 'https://gateway.example';
const MCP_RESOURCE = 'https://gateway.example/mcp';

const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('Test identity provider', () => {
  let idp: TestIdp;
  let discovery: Record<string, unknown>;

  beforeAll(async () => {
    idp = await startTestIdp();
    await idp.addClient({ clientId: 'gateway-sso', clientSecret: 'sso-secret', redirectUris: [REDIRECT] });
    await idp.addClient({
      clientId: 'ai-client',
      clientSecret: 'ai-secret',
      redirectUris: [REDIRECT],
      idJagClientId: 'client-at-gateway',
    });
    idp.setAccount('alice-sub', {
      email: 'alice@acme.example',
      email_verified: true,
      name: 'Alice Example',
      groups: ['engineering', 'admins'],
      tenant: 'acme',
    });
    discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  });
  afterAll(() => idp.stop());

  /** Authorization code flow with PKCE through signInWithoutBrowser; answers the token response. */
  async function signIn(clientId: string, secret: string, auth: 'basic' | 'post' = 'basic') {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const nonce = randomBytes(8).toString('hex');
    const authorize = new URL(String(discovery.authorization_endpoint));
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const back = new URL(await idp.signInWithoutBrowser(authorize.href, 'alice-sub'));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(state);
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (auth === 'basic') headers.authorization = basic(clientId, secret);
    else form.set('client_id', clientId), form.set('client_secret', secret);
    const res = await fetch(String(discovery.token_endpoint), { method: 'POST', headers, body: form });
    expect(res.status).toBe(200);
    return { tokens: (await res.json()) as { id_token: string; access_token: string }, nonce };
  }

  async function exchange(fields: Record<string, string>, clientId = 'ai-client', secret = 'ai-secret') {
    const res = await fetch(String(discovery.token_endpoint), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, secret) },
      body: new URLSearchParams({
        grant_type: TOKEN_EXCHANGE_GRANT,
        requested_token_type: ID_JAG_TYPE,
        subject_token_type: ID_TOKEN_TYPE,
        audience: AS_ISSUER,
        resource: MCP_RESOURCE,
        ...fields,
      }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  }

  it('publishes OpenID discovery on loopback http with PKCE S256, both client secret methods and the ID-JAG token exchange', () => {
    expect(idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(discovery.issuer).toBe(idp.issuer);
    expect(discovery.jwks_uri).toEqual(expect.stringContaining(idp.issuer));
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.response_types_supported).toEqual(['code']);
    expect(discovery.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
    );
    expect(discovery.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', TOKEN_EXCHANGE_GRANT]));
    expect(discovery.identity_chaining_requested_token_types_supported).toEqual([ID_JAG_TYPE]);
    expect(discovery.claims_supported).toEqual(
      expect.arrayContaining(['sub', 'email', 'email_verified', 'name', 'groups', 'tenant']),
    );
  });

  it('imports nothing from the service: only Node, jose and oidc-provider', () => {
    const source = readFileSync(join(__dirname, 'helpers', 'test-idp.ts'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    const imported = [...source.matchAll(/(?:from |import\()'([^']+)'/g)].map((m) => m[1]);
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((m) => !/^(node:|jose$|oidc-provider(\/|$))/.test(m))).toEqual([]);
  });

  it('serves a patched discovery document for tests of a misconfigured provider', async () => {
    const other = await startTestIdp();
    try {
      other.patchDiscovery({ code_challenge_methods_supported: ['plain'], jwks_uri: undefined });
      const document = (await (await fetch(`${other.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
      expect(document.code_challenge_methods_supported).toEqual(['plain']);
      expect(document).not.toHaveProperty('jwks_uri');
      expect(document.issuer).toBe(other.issuer);
    } finally {
      await other.stop();
    }
  });

  it('signs a person in with the authorization code and PKCE; the ID token verifies with the JWKS and carries nonce, email, name, groups and tenant', async () => {
    for (const auth of ['basic', 'post'] as const) {
      const { tokens, nonce } = await signIn('gateway-sso', 'sso-secret', auth);
      const { payload, protectedHeader } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(String(discovery.jwks_uri))), {
        issuer: idp.issuer,
        audience: 'gateway-sso',
      });
      expect(protectedHeader.kid).toBe(idp.currentKid());
      expect(payload).toMatchObject({
        sub: 'alice-sub',
        nonce,
        email: 'alice@acme.example',
        email_verified: true,
        name: 'Alice Example',
        groups: ['engineering', 'admins'],
        tenant: 'acme',
      });
    }
  });

  it('refuses an authorization request without PKCE and a sign-in as an unknown account', async () => {
    const authorize = new URL(String(discovery.authorization_endpoint));
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'gateway-sso',
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 's1',
      nonce: 'n1',
    }).toString();
    const back = new URL(await idp.signInWithoutBrowser(authorize.href, 'alice-sub'));
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/requires PKCE/);

    authorize.searchParams.set('code_challenge', createHash('sha256').update('v'.repeat(43)).digest('base64url'));
    authorize.searchParams.set('code_challenge_method', 'S256');
    await expect(idp.signInWithoutBrowser(authorize.href, 'nobody')).rejects.toThrow(/No account "nobody"/);
  });

  it('uses a configurable groups claim', async () => {
    const other = await startTestIdp({ groupsClaim: 'roles' });
    try {
      await other.addClient({ clientId: 'rp', clientSecret: 'rp-secret', redirectUris: [REDIRECT] });
      other.setAccount('bob', { email: 'bob@acme.example', email_verified: false, groups: ['viewers'] });
      const verifier = randomBytes(32).toString('base64url');
      const authorize = new URL(`${other.issuer}/auth`);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: 'rp',
        redirect_uri: REDIRECT,
        scope: 'openid email',
        state: 'x',
        nonce: 'y',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      const code = new URL(await other.signInWithoutBrowser(authorize.href, 'bob')).searchParams.get('code')!;
      const res = await fetch(`${other.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('rp', 'rp-secret') },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
      });
      const claims = decodeJwt(((await res.json()) as { id_token: string }).id_token);
      expect(claims).toMatchObject({ sub: 'bob', roles: ['viewers'], email_verified: false });
      expect(claims).not.toHaveProperty('groups');
      expect(claims).not.toHaveProperty('tenant');
    } finally {
      await other.stop();
    }
  });

  it('rotates its signing key: the new kid signs, the old kid leaves the JWKS', async () => {
    const before = (await signIn('gateway-sso', 'sso-secret')).tokens.id_token;
    const oldKid = decodeProtectedHeader(before).kid;
    await idp.rotateKeys();
    const jwks = (await (await fetch(String(discovery.jwks_uri))).json()) as { keys: Array<{ kid: string }> };
    expect(jwks.keys.map((k) => k.kid)).toEqual([idp.currentKid()]);
    expect(idp.currentKid()).not.toBe(oldKid);
    const after = (await signIn('gateway-sso', 'sso-secret')).tokens.id_token;
    expect(decodeProtectedHeader(after).kid).toBe(idp.currentKid());
    const remote = createRemoteJWKSet(new URL(String(discovery.jwks_uri)));
    await expect(jwtVerify(after, remote)).resolves.toBeDefined();
    await expect(jwtVerify(before, remote)).rejects.toThrow(/no applicable key found/i);
  });

  it('re-signs the next ID token after a patch, and signs raw tokens with its key, a foreign key, none or HS256', async () => {
    idp.tamperNextIdToken((claims) => {
      claims.aud = 'someone-else';
      claims.exp = Math.floor(Date.now() / 1000) - 3600;
    });
    const tampered = (await signIn('gateway-sso', 'sso-secret')).tokens.id_token;
    const remote = createRemoteJWKSet(new URL(String(discovery.jwks_uri)));
    const { payload } = await jwtVerify(tampered, remote, { currentDate: new Date(0) });
    expect(payload.aud).toBe('someone-else');
    const untouched = (await signIn('gateway-sso', 'sso-secret')).tokens.id_token;
    expect(decodeJwt(untouched).aud).toBe('gateway-sso');

    const claims = { iss: idp.issuer, sub: 'alice-sub' };
    await expect(jwtVerify(await idp.signJwt(claims), remote)).resolves.toBeDefined();
    await expect(jwtVerify(await idp.signJwt(claims, {}, { key: 'foreign' }), remote)).rejects.toThrow(/no applicable key/i);
    expect(decodeProtectedHeader(await idp.signJwt(claims, { typ: ID_JAG_TYP }, { key: 'none' }))).toEqual({ typ: ID_JAG_TYP, alg: 'none' });
    expect(decodeProtectedHeader(await idp.signJwt(claims, {}, { key: 'hs256', secret: 'k' })).alg).toBe('HS256');
  });

  it('exchanges its ID token for an ID-JAG with the claims of the draft and the RFC 8693 answer', async () => {
    const { tokens } = await signIn('ai-client', 'ai-secret');
    const first = await exchange({ subject_token: tokens.id_token, scope: 'mcp:tools' });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toEqual({
      issued_token_type: ID_JAG_TYPE,
      access_token: expect.any(String),
      token_type: 'N_A',
      expires_in: 300,
      scope: 'mcp:tools',
    });
    const jag = String(first.body.access_token);
    const { payload, protectedHeader } = await jwtVerify(jag, createRemoteJWKSet(new URL(String(discovery.jwks_uri))), {
      issuer: idp.issuer,
      audience: AS_ISSUER,
      typ: ID_JAG_TYP,
    });
    expect(protectedHeader).toMatchObject({ typ: ID_JAG_TYP, alg: 'RS256', kid: idp.currentKid() });
    expect(payload).toEqual({
      iss: idp.issuer,
      sub: 'alice-sub',
      aud: AS_ISSUER,
      client_id: 'client-at-gateway',
      jti: expect.any(String),
      iat: expect.any(Number),
      exp: payload.iat! + 300,
      resource: MCP_RESOURCE,
      scope: 'mcp:tools',
      tenant: 'acme',
      email: 'alice@acme.example',
    });
    expect(typeof payload.aud).toBe('string');
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5);
    const second = await exchange({ subject_token: tokens.id_token });
    expect(decodeJwt(String(second.body.access_token)).jti).not.toBe(payload.jti);
    expect(second.body).not.toHaveProperty('scope');
    expect(decodeJwt(String(second.body.access_token))).not.toHaveProperty('scope');
  });

  it("answers the MCP SDK client's token exchange request (client_secret_post, discovery from the issuer) with an ID token from obtainTokens", async () => {
    const tokens = await idp.obtainTokens({ clientId: 'ai-client', clientSecret: 'ai-secret', sub: 'alice-sub' });
    expect(decodeJwt(tokens.id_token)).toMatchObject({ aud: 'ai-client', sub: 'alice-sub', nonce: tokens.nonce });
    const result = await discoverAndRequestJwtAuthGrant({
      idpUrl: idp.issuer,
      audience: AS_ISSUER,
      resource: MCP_RESOURCE,
      idToken: tokens.id_token,
      clientId: 'ai-client',
      clientSecret: 'ai-secret',
      scope: 'mcp:tools',
    });
    expect(result.expiresIn).toBe(300);
    expect(decodeJwt(result.jwtAuthGrant)).toMatchObject({ aud: AS_ISSUER, client_id: 'client-at-gateway', resource: MCP_RESOURCE });
  });

  it('overrides claims of the next ID-JAG for negative tests', async () => {
    const { tokens } = await signIn('ai-client', 'ai-secret');
    idp.tamperNextIdJag((claims, header) => {
      claims.aud = [AS_ISSUER, 'https://other.example'];
      header.typ = 'JWT';
    });
    const tampered = await exchange({ subject_token: tokens.id_token });
    expect(decodeJwt(String(tampered.body.access_token)).aud).toEqual([AS_ISSUER, 'https://other.example']);
    expect(decodeProtectedHeader(String(tampered.body.access_token)).typ).toBe('JWT');
    const normal = await exchange({ subject_token: tokens.id_token });
    expect(decodeJwt(String(normal.body.access_token)).aud).toBe(AS_ISSUER);
  });

  it('refuses a token exchange with a bad subject token, an ID token of another client, a wrong secret or a missing parameter', async () => {
    const { tokens } = await signIn('gateway-sso', 'sso-secret');
    const forged = await idp.signJwt({ ...decodeJwt(tokens.id_token), aud: 'ai-client' }, {}, { key: 'foreign' });
    const bad = await exchange({ subject_token: forged });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/^subject_token is not a valid ID token/) });
    expect(bad.body.access_token).toBeUndefined();

    const otherClient = await exchange({ subject_token: tokens.id_token });
    expect(otherClient.status).toBe(400);
    expect(otherClient.body.error).toBe('invalid_grant');
    expect(otherClient.body.error_description).toMatch(/aud/);

    const wrongSecret = await exchange({ subject_token: tokens.id_token }, 'ai-client', 'nope');
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.error).toBe('invalid_client');

    const noAudience = await exchange({ subject_token: tokens.id_token, audience: '' });
    expect(noAudience.status).toBe(400);
    expect(noAudience.body).toEqual({ error: 'invalid_request', error_description: 'audience is required' });
  });
});
