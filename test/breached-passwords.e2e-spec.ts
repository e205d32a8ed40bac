import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import request from 'supertest';
import { CliIo, EXIT, runCli } from '../apps/cli/src/cli';
import { TestBrowser } from './factories/oauth';
import { startTestApp, TestApp } from './helpers/test-app';

/** Listed passwords that pass the length rule (12 characters or more). */
const BREACHED = ['password1234', 'qwertyuiop123', 'Password1234', '123456789012', '1qaz2wsx3edc', 'iloveyou1234'];

describe('commonly breached passwords are refused wherever a password is set', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SIGNUP_RATE_LIMIT_PER_HOUR: '1000' });
  });
  afterAll(() => t.close());

  const body = (password: string) => ({
    email: `breach-${randomUUID().slice(0, 8)}@example.test`,
    password,
    name: 'Bea',
    organizationName: 'Breach Ltd',
  });

  it.each(BREACHED)('REST sign-up refuses %s with 400 naming the password, never echoing it', async (password) => {
    expect(password.length).toBeGreaterThanOrEqual(12);
    const sent = body(password);
    const res = await request(t.baseUrl).post('/api/auth/signup').send(sent).expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: ['password is one of the most commonly breached passwords and would be guessed quickly; choose another (a few unrelated words work well)'],
    });
    expect(res.text.toLowerCase()).not.toContain(password.toLowerCase());
    const rows = await t.dataSource.query('SELECT 1 FROM users WHERE email = $1', [sent.email]);
    expect(rows).toHaveLength(0);
  });

  it('the sign-up page refuses one with a clear message and keeps the other fields', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const html = await (await browser.get('/signup')).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const sent = body('password1234');
    const res = await browser.post('/signup', { csrf, ...sent });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('Password is one of the most commonly breached passwords');
    expect(page).not.toContain('password1234');
    expect(page).toContain(sent.email);
  });

  it('a password that is long and not listed is accepted', async () => {
    await request(t.baseUrl).post('/api/auth/signup').send(body(`unlisted ${randomUUID()}`)).expect(201);
  });

  it('the command line refuses one for the first admin', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ag-breach-'));
    try {
      let stderr = '';
      const io: CliIo = {
        env: { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, ADMIN_PASSWORD: 'qwertyuiop123' },
        stdin: Readable.from([]),
        stdout: { write: () => true },
        stderr: { write: (chunk: string | Uint8Array) => ((stderr += String(chunk)), true) },
      };
      const code = await runCli(['create-admin', '--email', 'a@example.test', '--name', 'A', '--organization', 'O'], io);
      expect(code).toBe(EXIT.usage);
      expect(stderr).toContain('most commonly breached passwords');
      expect(stderr).not.toContain('qwertyuiop123');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
