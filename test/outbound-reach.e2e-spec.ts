import { request as httpRequest, type RequestOptions } from 'node:http';
import request from 'supertest';
import { CleanupScheduler } from '@app/database';
import { IdpMetadata, type IdentityProviderError } from '@app/identity';
import { ClientMetadataDocumentRepository, ClientMetadataDocumentService, type RequestOpener } from '@app/oauth';
import { RateLimitService } from '@app/rate-limit';
import { createTeam } from './factories/rest';
import { DocumentServer } from './helpers/document-server';
import { identityProviderPath, identityProviderSettings } from './helpers/identity';
import { startTestApp, type TestApp } from './helpers/test-app';
import { startTestIdp, type TestIdp } from './helpers/test-idp';

/**
 * Reaching hosts inside the network (SPEC §10, "Reaching private and loopback hosts"): an identity
 * provider at a private address is fetched only when the operator names its host in
 * OUTBOUND_ALLOW_HOSTS; OUTBOUND_ALLOW_LOOPBACK (development) admits http://127.0.0.1; neither ever
 * opens client metadata documents. A private address cannot be made on this machine, so the host
 * names resolve through a stand-in resolver and the requests, sent to the checked address, are
 * carried to a local document server.
 */
const PRIVATE_IDP = 'https://idp.corp.test';
const PRIVATE_ADDRESS = '10.20.0.15';

/** Resolves every name to the private address; records each connection, and carries it to `docs`. */
function insideNetwork(docs: DocumentServer) {
  const connections: { address: unknown; servername: unknown; path: unknown }[] = [];
  const open: RequestOpener = (_url, options) => {
    connections.push({ address: options.host, servername: (options as { servername?: string }).servername, path: options.path });
    return httpRequest({ ...options, protocol: 'http:', host: '127.0.0.1', port: docs.port, lookup: undefined } as RequestOptions);
  };
  const resolve = async () => [{ address: PRIVATE_ADDRESS, family: 4 }];
  return { connections, open, resolve };
}

/** The private IdP's discovery document and key set on the document server. */
function servePrivateIdp(docs: DocumentServer): void {
  docs.json('/.well-known/openid-configuration', () => ({
    issuer: PRIVATE_IDP,
    authorization_endpoint: `${PRIVATE_IDP}/auth`,
    token_endpoint: `${PRIVATE_IDP}/token`,
    jwks_uri: `${PRIVATE_IDP}/jwks`,
    response_types_supported: ['code'],
    id_token_signing_alg_values_supported: ['RS256'],
  }));
  docs.json('/jwks', () => ({ keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', use: 'sig' }] }));
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('identity providers inside the network: the defaults', () => {
  let t: TestApp;
  let idp: TestIdp;
  let docs: DocumentServer;
  beforeAll(async () => {
    t = await startTestApp();
    idp = await startTestIdp();
    docs = await DocumentServer.start();
    servePrivateIdp(docs);
  });
  afterAll(async () => {
    await docs?.close();
    await idp?.stop();
    await t?.close();
  });

  it('refuses an IdP on this machine over http with "issuer must use https", naming IDENTITY_PROVIDER_ALLOW_LOOPBACK', async () => {
    const { organization, admin } = await createTeam(t);
    const res = await request(t.baseUrl)
      .put(identityProviderPath(organization.id))
      .set('Authorization', `Bearer ${admin.jwt}`)
      .send(identityProviderSettings({ issuer: idp.issuer }))
      .expect(400);
    expect(res.body).toMatchObject({
      code: 'invalid_issuer',
      message:
        'issuer must use https (an identity provider on this machine over http, in development, needs the operator setting IDENTITY_PROVIDER_ALLOW_LOOPBACK=true, refused in production)',
    });
  });

  it('refuses an IdP whose host resolves to a private address, telling the operator to name it in OUTBOUND_ALLOW_HOSTS, before any request', async () => {
    const network = insideNetwork(docs);
    const error = await failure(new IdpMetadata(t.config, network).discovery(PRIVATE_IDP));
    expect((error as IdentityProviderError).code).toBe('identity_provider_unreachable');
    expect(error.message).toBe(
      "The identity provider's host idp.corp.test resolves to an address that is a private address; identity providers' documents are fetched only " +
        'from public addresses (or from hosts the operator names in OUTBOUND_ALLOW_HOSTS: add idp.corp.test there to reach it inside your network)',
    );
    expect(network.connections).toEqual([]);
  });
});

describe('identity providers inside the network: OUTBOUND_ALLOW_HOSTS and OUTBOUND_ALLOW_LOOPBACK set', () => {
  let t: TestApp;
  let idp: TestIdp;
  let docs: DocumentServer;
  beforeAll(async () => {
    t = await startTestApp({ OUTBOUND_ALLOW_HOSTS: 'idp.corp.test,docs.corp.test', OUTBOUND_ALLOW_LOOPBACK: 'true' });
    idp = await startTestIdp();
    docs = await DocumentServer.start();
    servePrivateIdp(docs);
  });
  afterAll(async () => {
    await docs?.close();
    await idp?.stop();
    await t?.close();
  });

  it('fetches a named IdP from its private address, under its host name, its discovery document and key set', async () => {
    const network = insideNetwork(docs);
    const metadata = new IdpMetadata(t.config, network);
    expect((await metadata.discovery(PRIVATE_IDP)).token_endpoint).toBe(`${PRIVATE_IDP}/token`);
    expect(await metadata.signingKeys(PRIVATE_IDP)).toHaveLength(1);
    expect(network.connections).toEqual([
      { address: PRIVATE_ADDRESS, servername: 'idp.corp.test', path: '/.well-known/openid-configuration' },
      { address: PRIVATE_ADDRESS, servername: 'idp.corp.test', path: '/jwks' },
    ]);
  });

  it('still refuses a host that is not named', async () => {
    const network = insideNetwork(docs);
    const error = await failure(new IdpMetadata(t.config, network).discovery('https://other.corp.test'));
    expect(error.message).toContain('add other.corp.test there');
    expect(network.connections).toEqual([]);
  });

  it('connects an IdP on http://127.0.0.1 under OUTBOUND_ALLOW_LOOPBACK', async () => {
    const { organization, admin } = await createTeam(t);
    const res = await request(t.baseUrl)
      .put(identityProviderPath(organization.id))
      .set('Authorization', `Bearer ${admin.jwt}`)
      .send(identityProviderSettings({ issuer: idp.issuer }));
    expect([res.status, res.body.issuer]).toEqual([200, idp.issuer]);
  });

  it('never opens client metadata documents: a named host at a private address and loopback stay refused', async () => {
    const network = insideNetwork(docs);
    const service = new ClientMetadataDocumentService(
      t.app.get(ClientMetadataDocumentRepository),
      t.app.get(RateLimitService),
      t.config,
      t.app.get(CleanupScheduler),
      network,
    );
    const named = await failure(service.resolve('https://docs.corp.test/client.json', null));
    expect(named.message).toBe(
      'The client_id host docs.corp.test resolves to an address that is a private address; client metadata documents are fetched only from public addresses',
    );
    expect((await failure(service.resolve(`http://127.0.0.1:${docs.port}/client.json`, null))).message).toBe('The client_id URL must use https');
    expect(network.connections).toEqual([]);
    expect(docs.totalHits).toBe(2); // the IdP's two documents of the first test, nothing since
  });

  it('keeps the query string of a key set URL (an Azure AD B2C jwks_uri with ?p=<policy>)', async () => {
    const issuer = `${PRIVATE_IDP}/b2c`;
    docs.json('/b2c/.well-known/openid-configuration', () => ({
      issuer,
      authorization_endpoint: `${issuer}/authorize?p=b2c_1_signin`,
      token_endpoint: `${issuer}/token?p=b2c_1_signin`,
      jwks_uri: `${issuer}/discovery/keys?p=b2c_1_signin`,
      response_types_supported: ['code'],
      id_token_signing_alg_values_supported: ['RS256'],
    }));
    docs.route('/b2c/discovery/keys', (req, res) => {
      const policy = new URL(req.url ?? '/', 'http://x').searchParams.get('p');
      res.writeHead(policy === 'b2c_1_signin' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(policy === 'b2c_1_signin' ? { keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', use: 'sig' }] } : { error: 'policy missing' }));
    });
    const network = insideNetwork(docs);
    expect(await new IdpMetadata(t.config, network).signingKeys(issuer)).toHaveLength(1);
    expect(network.connections.map((c) => c.path)).toEqual(['/b2c/.well-known/openid-configuration', '/b2c/discovery/keys?p=b2c_1_signin']);
  });
});
