import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { AppConfig } from '@app/config';
import { MIGRATIONS } from '@app/database';
import { createGatewayApp } from '../apps/gateway/src/configure-app';
import { EXIT } from '../apps/cli/src/cli';
import { runCliCaptured } from './helpers/cli';
import { freePort } from './helpers/postgres-server';
import { readTestState } from './helpers/test-state';

/** Runs the command line in-process and captures what it prints. */
function cli(argv: string[], env: Record<string, string>, stdin = '') {
  return runCliCaptured(argv, env, stdin);
}

/**
 * The command line against an empty database: a fresh DATA_DIR for the embedded database, or a
 * new, empty database on the run's PostgreSQL (so `migrate` has real work to do).
 */
describe('command line: migrate and create-admin', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ag-cli-'));
  const env: Record<string, string> = { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir };
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const state = readTestState();
    if (state.kind === 'postgres' && state.postgres) {
      const name = `cli_${randomUUID().replace(/-/g, '')}`;
      const admin = new Client({ connectionString: `postgres://postgres@127.0.0.1:${state.postgres.port}/postgres` });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      env.DATABASE_URL = `postgres://postgres@127.0.0.1:${state.postgres.port}/${name}`;
      dropDatabase = async () => {
        const c = new Client({ connectionString: `postgres://postgres@127.0.0.1:${state.postgres!.port}/postgres` });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      };
    }
  });
  afterAll(async () => {
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('migrates an empty database, then reports it up to date', async () => {
    const first = await cli(['migrate'], env);
    expect(first).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(first.stdout).toBe(`Applied ${MIGRATIONS.length} migration(s): ${MIGRATIONS.map((m) => m.name).join(', ')}\n`);
    const second = await cli(['migrate'], env);
    expect(second).toEqual({ code: EXIT.ok, stdout: 'Database schema is up to date.\n', stderr: '' });
  });

  it('refuses a password on the command line, naming the safe ways', async () => {
    const res = await cli(['create-admin', '--email', 'x@example.test', '--name', 'X', '--organization', 'O', '--password', 'hunter2hunter2'], env);
    expect(res.code).toBe(EXIT.usage);
    expect(res.stderr).toContain("Unknown option '--password'");
    expect(res.stderr).toContain('set ADMIN_PASSWORD or send it on standard input');
  });

  it('names missing options and bad values', async () => {
    const missing = await cli(['create-admin', '--email', 'x@example.test'], { ...env, ADMIN_PASSWORD: 'correct horse battery' });
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain('create-admin needs --name, --organization.');
    const bad = await cli(['create-admin', '--email', 'nope', '--name', 'X', '--organization', 'O'], { ...env, ADMIN_PASSWORD: 'short' });
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toContain('email must be an email address');
    expect(bad.stderr).toContain('password (ADMIN_PASSWORD or stdin) must be longer than or equal to 12 characters');
    expect(bad.stderr).not.toContain('short');
  });

  it('creates the first admin (password from ADMIN_PASSWORD or stdin), who can then log in and administer', async () => {
    const viaEnv = await cli(['create-admin', '--email', 'Root@Example.test', '--name', 'Root Admin', '--organization', 'Acme'], {
      ...env,
      ADMIN_PASSWORD: 'correct horse battery staple',
    });
    expect(viaEnv.code).toBe(EXIT.ok);
    expect(viaEnv.stdout).toMatch(/Created root@example\.test \(user [0-9a-f-]{36}\), admin of "Acme" \(organization [0-9a-f-]{36}\)\.\n$/);
    expect(viaEnv.stdout + viaEnv.stderr).not.toContain('correct horse');

    const viaStdin = await cli(['create-admin', '--email', 'second@example.test', '--name', 'Second', '--organization', 'Beta'], env, 'stdin password here\nignored\n');
    expect(viaStdin.code).toBe(EXIT.ok);

    const again = await cli(['create-admin', '--email', 'root@example.test', '--name', 'X', '--organization', 'Y'], { ...env, ADMIN_PASSWORD: 'another long password' });
    expect(again).toMatchObject({ code: EXIT.failed, stderr: 'An account with this email already exists: root@example.test\n' });

    // The service, started on the same database with signup off, lets both log in.
    const port = await freePort();
    const config = AppConfig.fromEnvironment({ ...env, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, SIGNUP_ENABLED: 'false' });
    const app = await createGatewayApp(config);
    await app.listen(port, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${port}`;
      const login = await request(base).post('/api/auth/login').send({ email: 'root@example.test', password: 'correct horse battery staple' }).expect(200);
      const me = await request(base).get('/api/me').auth(login.body.accessToken, { type: 'bearer' }).expect(200);
      expect(me.body.memberships).toEqual([{ organization: { id: expect.any(String), name: 'Acme' }, role: 'admin' }]);
      await request(base)
        .post(`/api/organizations/${me.body.memberships[0].organization.id}/projects`)
        .auth(login.body.accessToken, { type: 'bearer' })
        .send({ name: 'First project' })
        .expect(201);
      await request(base).post('/api/auth/login').send({ email: 'second@example.test', password: 'stdin password here' }).expect(200);
      const audit = await request(base)
        .get(`/api/organizations/${me.body.memberships[0].organization.id}/audit-events`)
        .auth(login.body.accessToken, { type: 'bearer' })
        .expect(200);
      expect(audit.body.items.map((e: { action: string; actorType: string }) => `${e.action} by ${e.actorType}`)).toEqual([
        'project.created by user',
        'organization.created by cli',
      ]);
    } finally {
      await app.close();
    }
  });

  it('reset-link prints a one-time link for a locked-out admin; using it sets the password once', async () => {
    const created = await cli(['create-admin', '--email', 'sole@example.test', '--name', 'Sole Admin', '--organization', 'Solo'], {
      ...env,
      ADMIN_PASSWORD: 'a forgotten password',
    });
    expect(created.code).toBe(EXIT.ok);
    expect((await cli(['reset-link'], env)).code).toBe(EXIT.usage);
    expect(await cli(['reset-link', '--email', 'nobody@example.test'], env)).toMatchObject({ code: EXIT.failed, stderr: 'No account uses the email nobody@example.test.\n' });
    const issued = await cli(['reset-link', '--email', 'Sole@Example.test'], env);
    expect(issued.code).toBe(EXIT.ok);
    const token = /\/reset-password\?token=(dgp_[0-9A-Za-z]{49})\n$/.exec(issued.stdout)?.[1];
    expect(token).toBeDefined();

    const port = await freePort();
    const config = AppConfig.fromEnvironment({ ...env, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, SIGNUP_ENABLED: 'false' });
    const app = await createGatewayApp(config);
    await app.listen(port, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${port}`;
      await request(base).post('/api/auth/password-reset').send({ token, password: 'a remembered password' }).expect(204);
      await request(base).post('/api/auth/password-reset').send({ token, password: 'a second new password' }).expect(404);
      await request(base).post('/api/auth/login').send({ email: 'sole@example.test', password: 'a forgotten password' }).expect(401);
      await request(base).post('/api/auth/login').send({ email: 'sole@example.test', password: 'a remembered password' }).expect(200);
    } finally {
      await app.close();
    }
  });

  it('prints usage for help and for an unknown command', async () => {
    expect((await cli(['help'], env)).stdout).toContain('create-admin --email <email> --name <name> --organization <organization name>');
    const unknown = await cli(['frobnicate'], env);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain('Unknown command "frobnicate"');
  });
});
