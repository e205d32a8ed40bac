import request from 'supertest';
import { startTestApp, TestApp } from './helpers/test-app';

const REGISTER = '/api/agent/oauth/register';

/**
 * SPEC §8 "Redirect schemes": a registered redirect URI may not open something dangerous on the
 * person's machine; private-use schemes are reverse-domain (RFC 8252 §7.1) or configured.
 */
describe('redirect URI schemes at registration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(() => t.close());

  const register = (uri: string) => request(t.baseUrl).post(REGISTER).send({ redirect_uris: [uri] });

  it.each([
    'intent://x/#Intent;scheme=evil;end',
    'intent:cb',
    'ms-msdt:/id PCWDiagnostic /skip force',
    'ms-msdt:cb',
    'ms-settings:privacy',
    'MS-Word:ofe|u|https://evil.example/x.docx',
    'search-ms:query=x',
    'chrome://settings',
    'chrome-extension://abc/cb',
    'jar:https://evil.example/x.jar!/',
    'about:blank',
    'blob:https://evil.example/uuid',
    'javascript:alert(1)',
    'data:text/html,x',
    'file:///etc/passwd',
    'vbscript:msgbox(1)',
    'myapp://cb',
    'evil:cb',
    'https:///cb',
    'https:/cb',
    'https:cb',
    'http:///127.0.0.1/cb',
    'https://evil.example\\@good.example/cb',
  ])('refuses %s', async (uri) => {
    const res = await register(uri);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_redirect_uri');
  });

  it.each([
    'cursor://anysphere.cursor-retrieval/oauth/callback',
    'vscode://vscode.github-authentication/did-authenticate',
    'vscode-insiders://vscode.github-authentication/did-authenticate',
    'windsurf://codeium.windsurf/cb',
    'com.example.app:/oauth2redirect',
    'https://app.example.com/cb',
    'http://127.0.0.1:33418/',
  ])('accepts %s', async (uri) => {
    const res = await register(uri);
    expect(res.status).toBe(201);
    expect(res.body.redirect_uris).toEqual([uri]);
  });

  it('says why a bare private-use scheme is refused', async () => {
    const res = await register('myapp://cb').expect(400);
    expect(res.body.error_description).toContain('reverse-domain form such as com.example.app:/callback');
  });

  describe('with OAUTH_EXTRA_REDIRECT_SCHEMES', () => {
    let custom: TestApp;
    beforeAll(async () => {
      custom = await startTestApp({ OAUTH_EXTRA_REDIRECT_SCHEMES: 'myapp, ms-msdt ,Cursor' });
    });
    afterAll(() => custom.close());

    it('accepts the listed schemes, drops the defaults, and never a dangerous one even if listed', async () => {
      const reg = (uri: string) => request(custom.baseUrl).post(REGISTER).send({ redirect_uris: [uri] });
      expect((await reg('myapp://cb')).status).toBe(201);
      expect((await reg('cursor://x/cb')).status).toBe(201);
      expect((await reg('vscode://x/cb')).status).toBe(400);
      expect((await reg('ms-msdt:cb')).status).toBe(400);
    });
  });
});
