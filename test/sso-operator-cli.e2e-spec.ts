import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { describeProcess } from '@app/database';
import { IdentityProviderSettings } from '@app/identity';
import { EXIT } from '../apps/cli/src/cli';
import { runCliCaptured } from './helpers/cli';
import { processEnded } from './helpers/gateway-process';
import { connectWithVerifiedDomains, identityProviderPath, TEST_IDP_CLIENT_ID, testDomain } from './helpers/identity';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { testDatabaseKind } from './helpers/test-state';
import { signupOverHttp } from './factories/rest';

const ROOT = join(__dirname, '..');
const onPostgres = testDatabaseKind() === 'postgres';
const NO_SUCH_ORG = '00000000-0000-4000-8000-000000000000';

/** The command line in this process, for refusals that end before it opens the database. */
function cliInProcess(argv: string[]) {
  return runCliCaptured(argv, { NODE_ENV: 'test', LOG_LEVEL: 'silent' });
}

/**
 * The real command line (`apps/cli/src/main.ts`, compiled on the fly) in its own process: in the
 * test's process its passport strategies would replace the running service's.
 */
function runCliProcess(cwd: string, args: string[], env: Record<string, string>) {
  return processEnded(
    spawn(process.execPath, ['-r', join(ROOT, 'test/helpers/register-ts.cjs'), join(ROOT, 'apps/cli/src/main.ts'), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/**
 * The operator's way back into an organisation that requires single sign-on when its identity
 * provider is broken: `sso-require-off` turns the requirement off (the admin's password session
 * opens the organisation again), `identity-provider-disconnect` removes the IdP; both audited with
 * the command line as actor, beside the running service on PostgreSQL.
 */
describe('command line: sso-require-off and identity-provider-disconnect', () => {
  let t: TestApp;
  let idp: TestIdp;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true' });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const auditOf = async (orgId: string) =>
    (await t.dataSource.query(
      `SELECT action, actor_type, metadata FROM audit_events WHERE organization_id = $1 AND action LIKE 'identity_provider.%' ORDER BY created_at, id`,
      [orgId],
    )) as { action: string; actor_type: string; metadata: Record<string, unknown> }[];

  /** An admin (password session) of an organisation that requires single sign-on through the test IdP. */
  async function lockedOutAdmin() {
    const admin = await signupOverHttp(t);
    const domain = testDomain('lock');
    await connectWithVerifiedDomains(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer, emailDomains: [domain], requireSso: true, confirmLockout: true });
    const res = await request(t.baseUrl).get(identityProviderPath(admin.organization.id)).set('Authorization', `Bearer ${admin.accessToken}`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('sso_required');
    return { admin, domain };
  }

  it('names a missing or malformed --organization before touching the database', async () => {
    for (const command of ['sso-require-off', 'identity-provider-disconnect']) {
      const missing = await cliInProcess([command]);
      expect(missing).toMatchObject({ code: EXIT.usage, stdout: '', stderr: expect.stringContaining(`${command} needs --organization.`) });
      const bad = await cliInProcess([command, '--organization', 'acme']);
      expect(bad).toEqual({ code: EXIT.usage, stdout: '', stderr: '--organization must be an organization id (a UUID), not "acme".\n' });
      const unknown = await cliInProcess([command, '--organization', NO_SUCH_ORG, '--require-sso', 'off']);
      expect(unknown.code).toBe(EXIT.usage);
      expect(unknown.stderr).toContain("Unknown option '--require-sso'");
    }
    const help = await cliInProcess(['help']);
    expect(help.stdout).toContain('sso-require-off --organization <organization id>');
    expect(help.stdout).toContain('identity-provider-disconnect --organization <organization id>');
  });

  it('the settings service turns the requirement off for the operator: the password session opens the organisation again, audited once', async () => {
    const { admin } = await lockedOutAdmin();
    const settings = t.app.get(IdentityProviderSettings);
    await expect(settings.turnOffRequireSso(admin.organization.id, { actorType: 'cli', actorId: null })).resolves.toEqual({ issuer: idp.issuer, wasOn: true });
    await expect(settings.turnOffRequireSso(admin.organization.id, { actorType: 'cli', actorId: null })).resolves.toEqual({ issuer: idp.issuer, wasOn: false });
    const shown = await request(t.baseUrl).get(identityProviderPath(admin.organization.id)).set('Authorization', `Bearer ${admin.accessToken}`).expect(200);
    expect(shown.body).toMatchObject({ issuer: idp.issuer, requireSso: false });
    const events = await auditOf(admin.organization.id);
    expect(events.at(-1)).toEqual({
      action: 'identity_provider.updated',
      actor_type: 'cli',
      metadata: { created: false, issuer: idp.issuer, clientId: TEST_IDP_CLIENT_ID, requireSso: false, previousRequireSso: true },
    });
    expect(events.filter((e) => e.actor_type === 'cli' && e.action === 'identity_provider.updated')).toHaveLength(1);
    await expect(settings.turnOffRequireSso(NO_SUCH_ORG, { actorType: 'cli', actorId: null })).rejects.toMatchObject({ kind: 'not_found' });
  });

  (onPostgres ? it : it.skip)('sso-require-off beside the running service: the locked-out admin gets back in; the IdP stays connected', async () => {
    const { admin, domain } = await lockedOutAdmin();
    const cwd = mkdtempSync(join(tmpdir(), 'ag-cli-'));
    const env = { LOG_LEVEL: 'silent', DATA_DIR: join(cwd, 'data'), DATABASE_URL: t.config.databaseUrl! };
    try {
      const done = await runCliProcess(cwd, ['sso-require-off', '--organization', admin.organization.id], env);
      expect(done).toMatchObject({
        code: EXIT.ok,
        stdout: expect.stringContaining(
          `Single sign-on is no longer required in organization ${admin.organization.id}: password sessions open it again. The identity provider ${idp.issuer} stays connected.`,
        ),
      });
      const again = await runCliProcess(cwd, ['sso-require-off', '--organization', admin.organization.id], env);
      expect(again).toMatchObject({ code: EXIT.ok, stdout: expect.stringContaining('Single sign-on was not required in organization') });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    const shown = await request(t.baseUrl).get(identityProviderPath(admin.organization.id)).set('Authorization', `Bearer ${admin.accessToken}`).expect(200);
    expect(shown.body).toMatchObject({ issuer: idp.issuer, requireSso: false, domains: [expect.objectContaining({ domain, status: 'verified' })] });
    const events = (await auditOf(admin.organization.id)).filter((e) => e.actor_type === 'cli' && e.action === 'identity_provider.updated');
    expect(events.map((e) => e.metadata)).toEqual([{ created: false, issuer: idp.issuer, clientId: TEST_IDP_CLIENT_ID, requireSso: false, previousRequireSso: true }]);
  }, 60_000);

  (onPostgres ? it : it.skip)('identity-provider-disconnect beside the running service: the IdP and its domain claims go, audited; a second run says there is none', async () => {
    const { admin, domain } = await lockedOutAdmin();
    const cwd = mkdtempSync(join(tmpdir(), 'ag-cli-'));
    const env = { LOG_LEVEL: 'silent', DATA_DIR: join(cwd, 'data'), DATABASE_URL: t.config.databaseUrl! };
    try {
      const done = await runCliProcess(cwd, ['identity-provider-disconnect', '--organization', admin.organization.id], env);
      expect(done).toMatchObject({
        code: EXIT.ok,
        stdout: expect.stringContaining(`The identity provider of organization ${admin.organization.id} is disconnected and its email-domain claims are deleted.`),
      });
      const again = await runCliProcess(cwd, ['identity-provider-disconnect', '--organization', admin.organization.id], env);
      expect(again).toMatchObject({ code: EXIT.failed, stderr: `Organization ${admin.organization.id} has no identity provider.\n` });
      const none = await runCliProcess(cwd, ['sso-require-off', '--organization', admin.organization.id], env);
      expect(none).toMatchObject({ code: EXIT.failed, stderr: `Organization ${admin.organization.id} has no identity provider.\n` });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    await request(t.baseUrl).get(identityProviderPath(admin.organization.id)).set('Authorization', `Bearer ${admin.accessToken}`).expect(404);
    await request(t.baseUrl).get(`/api/organizations/${admin.organization.id}`).set('Authorization', `Bearer ${admin.accessToken}`).expect(200);
    const removed = (await auditOf(admin.organization.id)).filter((e) => e.action === 'identity_provider.removed');
    expect(removed).toEqual([{ action: 'identity_provider.removed', actor_type: 'cli', metadata: { issuer: idp.issuer, clientId: TEST_IDP_CLIENT_ID, domainsRemoved: [domain] } }]);
  }, 60_000);
});

/** On the embedded database the running service holds the data folder: refused with 75 and the fix. */
(testDatabaseKind() === 'embedded' ? describe : describe.skip)('command line: the identity-provider commands beside a running embedded service', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'ag-lock-sso-cli-'));
  const dataDir = join(cwd, 'data');
  const holder = spawn('sleep', ['600'], { stdio: 'ignore' });

  beforeAll(() => {
    mkdirSync(join(dataDir, 'pg'), { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
    writeFileSync(join(dataDir, 'pg.lock'), JSON.stringify({ ...describeProcess(holder.pid!), command: 'node apps/gateway/src/main.ts' }));
  });
  afterAll(() => {
    holder.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  });

  it.each([
    ['sso-require-off', 'PUT /api/organizations/:orgId/identity-provider with requireSso false'],
    ['identity-provider-disconnect', 'DELETE /api/organizations/:orgId/identity-provider'],
  ])('%s prints the sentence and the fix, no stack trace, and exits 75', async (command, fix) => {
    const cli = await runCliProcess(cwd, [command, '--organization', NO_SUCH_ORG], { DATA_DIR: dataDir });
    expect(cli.code).toBe(EXIT.busy);
    expect(cli.stdout).toBe('');
    const lines = cli.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^The data folder .*/pg is in use by process ${holder.pid} \\(node apps/gateway/src/main\\.ts\\) since `));
    expect(lines[1]).toContain(`Fix: stop the service (process ${holder.pid}) and run this command again.`);
    expect(lines[1]).toContain(fix);
    expect(cli.stderr).not.toMatch(/\n\s+at |ExceptionHandler|DataFolderLockedError/);
  }, 60_000);
});
