import request from 'supertest';
import { authorizePath, createPersonWithProject, openConsent, pkcePair, TEST_REDIRECT_URI, TestBrowser, tokenRequest } from './factories/oauth';
import { DocumentServer } from './helpers/document-server';
import { startTestApp, TestApp } from './helpers/test-app';

const REGISTER = '/api/agent/oauth/register';

/**
 * A right-to-left override, a bidi isolate, a line break, a tab, an escape, a C1 control and a
 * right-to-left mark: each would hide or reorder the client's name on the consent page, the
 * Connected clients page or in the audit log.
 */
const UNSAFE = ['Claude\u202eevil', 'a\u2066b\u2069', 'line\nbreak', 'tab\there', 'esc\u001b[31m', 'next\u0085line', 'mark\u200f'];

/** A client name other people see (RFC 7591 registration, Client ID Metadata Document) refuses control and bidi formatting characters. */
describe('OAuth client names refuse control and bidi formatting characters', () => {
  let t: TestApp;
  let docs: DocumentServer;
  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000', CLIENT_METADATA_ALLOW_LOOPBACK: 'true' });
    docs = await DocumentServer.start();
  });
  afterAll(async () => {
    await docs.close();
    await t.close();
  });

  const authorizeQuery = (clientId: string) =>
    authorizePath({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: TEST_REDIRECT_URI,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 's',
    });

  it('registration answers 400 invalid_client_metadata naming client_name, without echoing it, and stores nothing', async () => {
    for (const bad of UNSAFE) {
      const res = await request(t.baseUrl).post(REGISTER).send({ client_name: bad, redirect_uris: ['https://app.example.com/cb'] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_client_metadata',
        error_description: 'client_name must not contain control characters or bidirectional formatting characters',
      });
      expect(res.text).not.toContain(JSON.stringify(bad).slice(1, -1));
      expect(res.text).not.toContain(bad);
    }
    const stored = await t.dataSource.query(`SELECT client_name FROM oauth_clients WHERE client_name ~ '[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]'`);
    expect(stored).toEqual([]);
    const audited = await t.dataSource.query(
      `SELECT metadata FROM audit_events WHERE action = 'oauth_client.registered' AND metadata->>'clientName' ~ '[\\u0000-\\u001f\\u202e\\u2066\\u200f\\u0085]'`,
    );
    expect(audited).toEqual([]);
  });

  it('registration still accepts other scripts, emoji and the zero-width joiner', async () => {
    const name = 'Claude عربي 中文 👩\u200d💻';
    const res = await request(t.baseUrl).post(REGISTER).send({ client_name: name, redirect_uris: ['https://app.example.com/cb'] }).expect(201);
    expect(res.body.client_name).toBe(name);
  });

  it('a metadata document with such a client_name is refused as invalid at authorize (error page) and at token, and is not stored', async () => {
    const person = await createPersonWithProject(t);
    const browser = new TestBrowser(t.baseUrl);
    expect((await browser.login(person.user.email, person.user.password)).status).toBe(303);
    for (const [i, bad] of UNSAFE.entries()) {
      const url = docs.json(`/bad-name-${i}.json`, (u) => ({ client_id: u, client_name: bad, redirect_uris: [TEST_REDIRECT_URI] }));
      const res = await browser.get(authorizeQuery(url));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      const body = await res.text();
      expect(body).toContain('Application could not be verified');
      expect(body).toContain('The client metadata document must have a client_name without control characters or bidirectional formatting characters');
      expect(body).not.toContain(bad);
      expect(body).not.toContain('Allow <strong>');

      const token = await tokenRequest(t.baseUrl, { grant_type: 'refresh_token', refresh_token: 'dgr_x', client_id: url });
      expect(token.status).toBe(401);
      expect(token.body).toEqual({
        error: 'invalid_client',
        error_description:
          'Client authentication failed: The client metadata document must have a client_name without control characters or bidirectional formatting characters',
      });
      expect(await t.dataSource.query('SELECT client_id FROM client_metadata_documents WHERE client_id = $1', [url])).toEqual([]);
      expect(await t.dataSource.query('SELECT client_id FROM oauth_clients WHERE client_id = $1', [url])).toEqual([]);
    }

    // The same document with a plain name is accepted and its name shown.
    const good = docs.json('/good-name.json', (u) => ({ client_id: u, client_name: 'Plain Client', redirect_uris: [TEST_REDIRECT_URI] }));
    const consent = await openConsent(browser, authorizeQuery(good));
    expect(consent.html).toContain('Allow <strong>Plain Client</strong> to use Agent Gateway?');
  });
});
