import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, parseSecretsKeys } from '@app/config';
import { IdentityProviderDirectory } from '@app/identity';
import { StoredSecretsAtStart } from '../apps/gateway/src/stored-secrets-at-start';
import { EXIT } from '../apps/cli/src/cli';
import { signupOverHttp } from './factories/rest';
import { processEnded, spawnGateway } from './helpers/gateway-process';
import { connectIdentityProvider, TEST_IDP_CLIENT_SECRET } from './helpers/identity';
import { freePort } from './helpers/postgres-server';
import { startTestApp, TEST_SECRETS_KEYS, type TestApp } from './helpers/test-app';
import { startTestIdp, type TestIdp } from './helpers/test-idp';
import { testDatabaseKind } from './helpers/test-state';

const ROOT = join(__dirname, '..');
const onPostgres = testDatabaseKind() === 'postgres';
const place = (organizationId: string) => ({ table: 'identity_providers', column: 'client_secret', rowId: organizationId });

/** Every way the secret could sit in a table: as it is, base64, base64url and hex. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  return [secret, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex')];
}

/**
 * Stored outbound secrets (SPEC §10): an IdP's client secret is stored under AES-256-GCM bound to
 * its row, found in no table in clear; a value left in clear is encrypted at start; a start whose
 * database holds a value under a key id missing from SECRETS_KEYS fails, naming where; the
 * operator's `secrets-rotate` re-encrypts under the current key.
 */
describe('secrets at rest: the identity providers’ client secrets', () => {
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

  async function connected() {
    const admin = await signupOverHttp(t);
    await connectIdentityProvider(t, admin.organization.id, admin.accessToken, { issuer: idp.issuer });
    return admin.organization.id;
  }
  const stored = async (orgId: string): Promise<string> =>
    (await t.dataSource.query(`SELECT client_secret FROM identity_providers WHERE organization_id = $1`, [orgId]))[0].client_secret;

  it('is stored encrypted under the current key, found in no table in any encoding, and read back for the code exchange', async () => {
    const orgId = await connected();
    expect(await stored(orgId)).toMatch(/^v1:test:[\w-]+:[\w-]+:[\w-]+$/);
    const tables: { table_name: string }[] = await t.dataSource.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
    expect(tables.length).toBeGreaterThan(20);
    for (const { table_name } of tables) {
      const [{ found }] = await t.dataSource.query(
        `SELECT count(*)::int AS found FROM "${table_name}" t WHERE ${encodings(TEST_IDP_CLIENT_SECRET).map((_, i) => `strpos(t::text, $${i + 1}) > 0`).join(' OR ')}`,
        encodings(TEST_IDP_CLIENT_SECRET),
      );
      expect({ table: table_name, found }).toEqual({ table: table_name, found: 0 });
    }
    expect(await t.app.get(IdentityProviderDirectory).clientSecretOf(orgId)).toBe(TEST_IDP_CLIENT_SECRET);
  });

  it('a value copied to another organisation’s row does not decrypt there (the row is in the additional data)', async () => {
    const [a, b] = [await connected(), await connected()];
    await t.dataSource.query(`UPDATE identity_providers SET client_secret = $1 WHERE organization_id = $2`, [await stored(a), b]);
    await expect(t.app.get(IdentityProviderDirectory).clientSecretOf(b)).rejects.toThrow();
    await t.dataSource.query(`DELETE FROM identity_providers WHERE organization_id = $1`, [b]);
  });

  it('a value left in clear is encrypted at start; a value under a key missing from SECRETS_KEYS stops the start, naming where and the key, never the value', async () => {
    const orgId = await connected();
    await t.dataSource.query(`UPDATE identity_providers SET client_secret = 'a-secret-still-in-clear' WHERE organization_id = $1`, [orgId]);
    await t.app.get(StoredSecretsAtStart).onApplicationBootstrap();
    expect(await stored(orgId)).toMatch(/^v1:test:/);
    expect(await t.app.get(IdentityProviderDirectory).clientSecretOf(orgId)).toBe('a-secret-still-in-clear');

    const lost = encryptSecret([{ id: 'gone', key: randomBytes(32) }], 'under-a-lost-key', place(orgId));
    await t.dataSource.query(`UPDATE identity_providers SET client_secret = $1 WHERE organization_id = $2`, [lost, orgId]);
    const failure = await t.app.get(StoredSecretsAtStart).onApplicationBootstrap().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(failure?.message).toBe(
      `identity_providers.client_secret of row ${orgId} is encrypted under key gone, which is not in SECRETS_KEYS: add that key back to the ring (after the current one) to start`,
    );
    await t.dataSource.query(`DELETE FROM identity_providers WHERE organization_id = $1`, [orgId]);
  });

  (onPostgres ? it : it.skip)('a process whose ring lacks a stored key id does not start; secrets-rotate moves every secret to the current key', async () => {
    const orgId = await connected();
    const cwd = mkdtempSync(join(tmpdir(), 'ag-secrets-'));
    const newKey = `k2:${randomBytes(32).toString('base64')}`;
    const env = { LOG_LEVEL: 'warn', DATA_DIR: join(cwd, 'data'), DATABASE_URL: t.config.databaseUrl! };
    try {
      const refused = await processEnded(spawnGateway(cwd, { ...env, HOST: '127.0.0.1', PORT: String(await freePort()), SECRETS_KEYS: newKey }));
      expect(refused.code).not.toBe(0);
      expect(refused.stdout + refused.stderr).toContain(`is encrypted under key test, which is not in SECRETS_KEYS`);
      expect(refused.stdout + refused.stderr).not.toContain(TEST_IDP_CLIENT_SECRET);

      const rotated = await processEnded(
        spawn(process.execPath, ['-r', join(ROOT, 'test/helpers/register-ts.cjs'), join(ROOT, 'apps/cli/src/main.ts'), 'secrets-rotate'], {
          cwd,
          env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', ...env, SECRETS_KEYS: `${newKey},${TEST_SECRETS_KEYS}` },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      expect(rotated.stderr).toBe('');
      expect(rotated).toMatchObject({ code: EXIT.ok, stdout: expect.stringMatching(/stored secret\(s\) re-encrypted under key k2 \(identity providers' client secrets: [1-9]\d*;/) });
      const value = await stored(orgId);
      expect(value).toMatch(/^v1:k2:/);
      expect(decryptSecret(parseSecretsKeys(newKey).keys, value, place(orgId))).toBe(TEST_IDP_CLIENT_SECRET);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 120_000);
});
