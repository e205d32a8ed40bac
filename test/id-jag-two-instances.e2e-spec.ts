import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { idJagClaims, setUpEnterprise, signedIdJag, tradeIdJag } from './factories/id-jag';
import { ClonedDatabase, cloneTemplateDatabase } from './helpers/template-database';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';
import { readTestState, testDatabaseKind } from './helpers/test-state';

const REPLAYED = {
  error: 'invalid_grant',
  error_description: 'This ID-JAG was already used (its jti): each is traded once; ask the identity provider for a new one',
};

/**
 * An ID-JAG is traded once across instances: two gateways on one PostgreSQL behind one public
 * URL (each with its own pool and its own cache of the IdP's key set) share the record of used
 * (issuer, jti). PostgreSQL only (two instances cannot share the embedded database).
 */
const onPostgres = testDatabaseKind() === 'postgres';
(onPostgres ? describe : describe.skip)('ID-JAG single use across two instances on one PostgreSQL', () => {
  let idp: TestIdp;
  let database: ClonedDatabase | undefined;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const { postgres } = readTestState();
    if (!postgres) throw new Error('the PostgreSQL run has no server');
    idp = await startTestIdp();
    database = await cloneTemplateDatabase(postgres.port, 'idjag');
    const shared = {
      DATABASE_URL: database.url,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true',
      REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000',
    };
    a = await startTestApp(shared);
    // Behind one load balancer both answer for one public URL: the same issuer and resource.
    b = await startTestApp({ ...shared, BASE_URL: a.baseUrl });
  }, 120_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.drop();
    await idp?.stop();
  });

  it('refuses on one instance an ID-JAG already traded on the other', async () => {
    const e = await setUpEnterprise(a, idp);
    const idJag = await signedIdJag(idp, idJagClaims(idp, a, e));
    const first = await tradeIdJag(a, e.client, idJag);
    expect(first.status).toBe(200);
    const replay = await tradeIdJag(b, e.client, idJag);
    expect({ status: replay.status, body: replay.body }).toEqual({ status: 400, body: REPLAYED });
  });

  it('lets exactly one of concurrent trades of one ID-JAG on both instances win', async () => {
    const e = await setUpEnterprise(a, idp);
    const idJag = await signedIdJag(idp, idJagClaims(idp, a, e));
    const answers = await Promise.all([a, b, a, b, a, b].map((instance) => tradeIdJag(instance, e.client, idJag)));
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((r) => r.status !== 200).map((r) => r.body)).toEqual(Array(5).fill(REPLAYED));
    const [{ n }] = await a.dataSource.query('SELECT count(*)::int AS n FROM id_jag_assertions WHERE issuer = $1 AND jti = $2', [idp.issuer, decodeJwt(idJag).jti]);
    expect(n).toBe(1);
  });
});
