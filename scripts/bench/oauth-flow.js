/**
 * The OAuth flow of an AI client, as the bench and the soak drive it: a browser session (cookie
 * jar) signed in on the HTML login page, one registered public client, and for each grant the
 * consent page, its approval and the code exchange with PKCE S256.
 */
const { createHash, randomBytes } = require('node:crypto');

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** Thrown when the service answers something the flow did not expect; `status` says what. */
class FlowError extends Error {
  constructor(step, status, text) {
    super(`${step} → ${status}: ${String(text).slice(0, 300)}`);
    this.status = status;
  }
}

/**
 * Signs `user` ({email, password}) in on the login page and registers a client. `onAnswer(status,
 * step)` sees every HTTP answer (the soak counts them). Returns `grant(projectId, permissions)`.
 */
async function oauthSession(base, user, onAnswer = () => {}) {
  const cookies = new Map();
  async function send(step, method, path, form) {
    const headers = {};
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(form)) for (const item of [].concat(v)) params.append(k, item);
      body = params.toString();
    }
    const res = await fetch(`${base}${path}`, { method, headers, body, redirect: 'manual' });
    onAnswer(res.status, step);
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return res;
  }
  async function json(step, path, form, body) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': body ? 'application/json' : 'application/x-www-form-urlencoded' },
      body: body ? JSON.stringify(body) : new URLSearchParams(form).toString(),
    });
    onAnswer(res.status, step);
    const text = await res.text();
    if (res.status >= 400) throw new FlowError(step, res.status, text);
    return text ? JSON.parse(text) : {};
  }
  const hidden = (html, name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)[1].replace(/&amp;/g, '&');

  const loginPage = await (await send('login page', 'GET', '/login?next=%2F')).text();
  const login = await send('login', 'POST', '/login', { email: user.email, password: user.password, next: '/', csrf_token: hidden(loginPage, 'csrf_token') });
  if (login.status !== 303) throw new FlowError('login', login.status, await login.text());
  const client = await json('register', '/api/agent/oauth/register', undefined, { client_name: 'Bench client', redirect_uris: [REDIRECT_URI] });
  const resource = `${base}/api/mcp`;

  return {
    clientId: client.client_id,
    /** One grant: consent page, approval, code exchange. Resolves with the token answer. */
    async grant(projectId, permissions = ['project:read', 'tasks:read']) {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const query = new URLSearchParams({
        response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, code_challenge: challenge,
        code_challenge_method: 'S256', state: randomBytes(6).toString('hex'), resource,
      });
      const consentRes = await send('consent page', 'GET', `/api/agent/oauth/authorize?${query}`);
      const consent = await consentRes.text();
      if (consentRes.status !== 200) throw new FlowError('consent page', consentRes.status, consent);
      const approved = await send('consent', 'POST', '/api/agent/oauth/authorize', {
        request_id: hidden(consent, 'request_id'), csrf_token: hidden(consent, 'csrf_token'), project_id: projectId,
        permissions, decision: 'approve',
      });
      await approved.text();
      if (approved.status !== 303) throw new FlowError('consent', approved.status, '');
      const code = new URL(approved.headers.get('location')).searchParams.get('code');
      return json('code exchange', '/api/agent/oauth/token', {
        grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: client.client_id, resource,
      });
    },
    /** One refresh-token rotation. */
    refresh(refreshToken) {
      return json('refresh rotation', '/api/agent/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.client_id });
    },
    /** RFC 7009 revocation of a token of this client. */
    revoke(token) {
      return json('token revocation', '/api/agent/oauth/revoke', { token, client_id: client.client_id });
    },
  };
}

/** `count` refresh tokens, each of its own grant (the bench's refresh scenario). */
async function oauthRefreshTokens(base, seed, count) {
  const session = await oauthSession(base, seed);
  const tokens = [];
  for (let i = 0; i < count; i++) tokens.push((await session.grant(seed.projectId)).refresh_token);
  return { clientId: session.clientId, tokens };
}

module.exports = { FlowError, oauthRefreshTokens, oauthSession };
