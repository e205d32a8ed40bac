import cookieParser from 'cookie-parser';
import express from 'express';
import request from 'supertest';
import { FormCsrf } from './form-csrf';

const BASE_URL = 'http://gateway.example:8080';
const SECRET = 'unit-test-secret-of-sufficient-length-0123456789';

/** A form behind FormCsrf, as the sign-in and sign-up pages use it. */
function formApp(secret = SECRET, baseUrl = BASE_URL) {
  const csrf = new FormCsrf({ baseUrl, sessionSecret: secret }, { cookie: 'test_csrf', path: '/form' });
  const app = express();
  app.use(cookieParser());
  app.use(express.urlencoded({ extended: false }));
  app.get('/form', (req, res) => {
    res.send(csrf.issue(req, res));
  });
  app.post('/form', (req, res) => {
    if (!csrf.verify(req, (req.body as Record<string, unknown>).csrf)) return void res.status(403).end();
    csrf.clear(res);
    res.status(204).end();
  });
  return app;
}

async function open(app: express.Express) {
  const agent = request.agent(app);
  const res = await agent.get('/form').expect(200);
  return { agent, token: res.text, setCookie: ([] as string[]).concat(res.headers['set-cookie'] ?? []) };
}

describe('FormCsrf', () => {
  it('sets an HttpOnly, SameSite=Strict cookie scoped to the form, with a signed token for the field', async () => {
    const { token, setCookie } = await open(formApp());
    expect(setCookie).toHaveLength(1);
    expect(setCookie[0]).toMatch(/^test_csrf=[A-Za-z0-9_-]{43}; Max-Age=7200; Path=\/form; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(setCookie[0]).not.toContain(token);
  });

  it('marks the cookie Secure when the service is served over https', async () => {
    const { setCookie } = await open(formApp(SECRET, 'https://gateway.example'));
    expect(setCookie[0]).toMatch(/; Secure;/);
  });

  it('accepts the token with its cookie, from the same origin or with no Origin, and clears the cookie after', async () => {
    const { agent, token } = await open(formApp());
    await agent.post('/form').type('form').send({ csrf: token }).expect(204);
    const again = await open(formApp());
    const res = await again.agent.post('/form').set('Origin', 'http://gateway.example:8080').type('form').send({ csrf: again.token }).expect(204);
    expect(String(res.headers['set-cookie'])).toMatch(/^test_csrf=; Path=\/form; Expires=Thu, 01 Jan 1970/);
  });

  it('reuses the visitor cookie, so a second tab gets the same token', async () => {
    const { agent, token } = await open(formApp());
    const second = await agent.get('/form').expect(200);
    expect(second.headers['set-cookie']).toBeUndefined();
    expect(second.text).toBe(token);
  });

  it('refuses a POST from another origin, even with the right cookie and token', async () => {
    const { agent, token } = await open(formApp());
    for (const origin of ['https://evil.example', 'http://gateway.example:8081', 'https://gateway.example:8080', 'http://gateway.example']) {
      await agent.post('/form').set('Origin', origin).type('form').send({ csrf: token }).expect(403);
    }
    await agent.post('/form').type('form').send({ csrf: token }).expect(204);
  });

  it('refuses a POST the browser marks as cross-site or same-site, whatever its Origin', async () => {
    const { agent, token } = await open(formApp());
    for (const site of ['cross-site', 'same-site', 'bogus']) {
      await agent.post('/form').set('Sec-Fetch-Site', site).set('Origin', 'null').type('form').send({ csrf: token }).expect(403);
      await agent.post('/form').set('Sec-Fetch-Site', site).type('form').send({ csrf: token }).expect(403);
    }
    await agent.post('/form').set('Sec-Fetch-Site', 'same-origin').set('Origin', 'https://evil.example').type('form').send({ csrf: token }).expect(403);
    await agent.post('/form').set('Sec-Fetch-Site', 'same-origin').type('form').send({ csrf: token }).expect(204);
  });

  it("accepts Origin: null with the cookie and token, as a browser sends it for the page's own form under Referrer-Policy: no-referrer", async () => {
    const { agent, token } = await open(formApp());
    await agent.post('/form').set('Origin', 'null').type('form').send({ csrf: 'x'.repeat(43) }).expect(403);
    await agent.post('/form').set('Origin', 'null').set('Sec-Fetch-Site', 'same-origin').type('form').send({ csrf: token }).expect(204);
  });

  it('refuses a wrong, missing, repeated or truncated token', async () => {
    const { agent, token } = await open(formApp());
    const other = await open(formApp());
    for (const body of [{ csrf: 'x'.repeat(43) }, {}, { csrf: '' }, { csrf: [token, token] }, { csrf: token.slice(0, 42) }, { csrf: other.token }]) {
      await agent.post('/form').type('form').send(body).expect(403);
    }
    await agent.post('/form').type('form').send({ csrf: token }).expect(204);
  });

  it('refuses the token without its cookie, or with a cookie planted by someone else', async () => {
    const { token, setCookie } = await open(formApp());
    const app = formApp();
    await request(app).post('/form').type('form').send({ csrf: token }).expect(403);
    await request(app).post('/form').set('Cookie', 'test_csrf=' + 'A'.repeat(43)).type('form').send({ csrf: token }).expect(403);
    await request(app).post('/form').set('Cookie', 'test_csrf=short').type('form').send({ csrf: token }).expect(403);
    // The genuine pair, presented by hand, is accepted (the refusals above are about the cookie).
    await request(app).post('/form').set('Cookie', setCookie[0]!.split(';')[0]!).type('form').send({ csrf: token }).expect(204);
  });

  it('refuses a token signed with another secret', async () => {
    const { setCookie, token } = await open(formApp('another-secret-of-sufficient-length-9876543210'));
    await request(formApp()).post('/form').set('Cookie', setCookie[0]!.split(';')[0]!).type('form').send({ csrf: token }).expect(403);
  });
});
