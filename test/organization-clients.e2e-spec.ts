import request from 'supertest';
import { OAuthCleanupService } from '@app/oauth';
import { addMember, createUser } from './factories';
import { createOrganizationClient, idJagClaims, setUpEnterprise, signedIdJag, tradeIdJag } from './factories/id-jag';
import { createApiKey, sessionFor } from './factories/rest';
import { connectIdentityProvider, identityProviderPath } from './helpers/identity';
import { listToolsRaw } from './helpers/mcp-raw';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

/**
 * Organisation clients (SPEC §10): confidential clients an admin makes for ID-JAG; they belong to
 * the organisation that made them and survive their creator. `GET/POST …/oauth-clients`,
 * `GET/DELETE …/oauth-clients/:clientId`, `POST …/oauth-clients/:clientId/rotate`.
 */
describe('organisation clients: REST', () => {
  let t: TestApp;
  let idp: TestIdp;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', TOKEN_MAX_FAILURES_PER_CLIENT_AND_IP: '100000' });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const api = () => request(t.baseUrl);
  const path = (orgId: string, rest = '') => `/api/organizations/${orgId}/oauth-clients${rest}`;

  it('lists the organisation’s clients with their maker and last use, shows one, and answers another organisation’s as not found', async () => {
    const e = await setUpEnterprise(t, idp);
    const adminJwt = await sessionFor(t, e.admin.id);
    const list = await api().get(path(e.organization.id)).auth(adminJwt, { type: 'bearer' }).expect(200);
    expect(list.body).toEqual({ items: [{ clientId: e.client.client_id, clientName: 'Enterprise AI client', createdAt: expect.any(String), createdBy: e.admin.id, lastUsedAt: null }] });
    expect(JSON.stringify(list.body)).not.toContain(e.client.client_secret);

    expect((await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)))).status).toBe(200);
    const one = await api().get(path(e.organization.id, `/${e.client.client_id}`)).auth(adminJwt, { type: 'bearer' }).expect(200);
    expect(one.body).toEqual({ clientId: e.client.client_id, clientName: 'Enterprise AI client', createdAt: list.body.items[0].createdAt, createdBy: e.admin.id, lastUsedAt: expect.any(String) });

    const other = await setUpEnterprise(t, idp);
    const otherJwt = await sessionFor(t, other.admin.id);
    await api().get(path(other.organization.id, `/${e.client.client_id}`)).auth(otherJwt, { type: 'bearer' }).expect(404);
    await api().post(path(other.organization.id, `/${e.client.client_id}/rotate`)).auth(otherJwt, { type: 'bearer' }).expect(404);
    await api().delete(path(other.organization.id, `/${e.client.client_id}`)).auth(otherJwt, { type: 'bearer' }).expect(404);
    expect((await api().get(path(other.organization.id)).auth(otherJwt, { type: 'bearer' }).expect(200)).body.items.map((c: { clientId: string }) => c.clientId)).toEqual([other.client.client_id]);
  });

  it('admins only, with a session: a member gets 403, an rk_ key 403', async () => {
    const e = await setUpEnterprise(t, idp);
    const memberJwt = await sessionFor(t, e.person.id);
    await api().get(path(e.organization.id)).auth(memberJwt, { type: 'bearer' }).expect(403);
    await api().post(path(e.organization.id, `/${e.client.client_id}/rotate`)).auth(memberJwt, { type: 'bearer' }).expect(403);
    const { key } = await createApiKey(t.dataSource, e.organization.id, ['projects:read']);
    await api().get(path(e.organization.id)).auth(key, { type: 'bearer' }).expect(403);
  });

  it('rotate answers a new secret once: the old one stops at once, the new one trades, tokens already issued keep working', async () => {
    const e = await setUpEnterprise(t, idp);
    const adminJwt = await sessionFor(t, e.admin.id);
    const before = (await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)))).body.access_token as string;
    const rotated = await api().post(path(e.organization.id, `/${e.client.client_id}/rotate`)).auth(adminJwt, { type: 'bearer' }).expect(200);
    expect(rotated.body).toEqual({ clientId: e.client.client_id, clientSecret: expect.stringMatching(/^dgs_/) });
    expect(rotated.body.clientSecret).not.toBe(e.client.client_secret);
    expect((await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)))).status).toBe(401);
    expect((await tradeIdJag(t, { ...e.client, client_secret: rotated.body.clientSecret }, await signedIdJag(idp, idJagClaims(idp, t, e)))).status).toBe(200);
    expect((await listToolsRaw(t.baseUrl, before)).status).toBe(200);
    const [event] = await t.dataSource.query(`SELECT actor_id, metadata::text AS m FROM audit_events WHERE action = 'oauth_client.secret_rotated' AND target_id = $1`, [e.client.client_id]);
    expect(event.actor_id).toBe(e.admin.id);
    expect(event.m).not.toContain(rotated.body.clientSecret);
  });

  it('delete ends the client’s tokens at once and takes it out of idJagClients', async () => {
    const e = await setUpEnterprise(t, idp);
    const adminJwt = await sessionFor(t, e.admin.id);
    const token = (await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)))).body.access_token as string;
    await api().delete(path(e.organization.id, `/${e.client.client_id}`)).auth(adminJwt, { type: 'bearer' }).expect(204);
    expect((await listToolsRaw(t.baseUrl, token)).status).toBe(401);
    expect((await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)))).status).toBe(401);
    await api().get(path(e.organization.id, `/${e.client.client_id}`)).auth(adminJwt, { type: 'bearer' }).expect(404);
    const settings = await api().get(identityProviderPath(e.organization.id)).auth(adminJwt, { type: 'bearer' }).expect(200);
    expect(settings.body.idJagClients).toEqual([]);
    await api().delete(path(e.organization.id, `/${e.client.client_id}`)).auth(adminJwt, { type: 'bearer' }).expect(404);
  });

  it('survives its creator: the admin who made it is removed, and the client still trades', async () => {
    const e = await setUpEnterprise(t, idp);
    const second = await createUser(t.dataSource);
    await addMember(t.dataSource, e.organization.id, second.id, 'admin');
    const secondJwt = await sessionFor(t, second.id);
    await api().delete(`/api/organizations/${e.organization.id}/members/${e.admin.id}`).auth(secondJwt, { type: 'bearer' }).expect(200);
    const res = await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)));
    expect(res.status).toBe(200);
    const listed = await api().get(path(e.organization.id)).auth(secondJwt, { type: 'bearer' }).expect(200);
    expect(listed.body.items).toEqual([expect.objectContaining({ clientId: e.client.client_id, createdBy: e.admin.id })]);
  });

  it('the cleanup of unused registrations keeps an organisation client that never traded; a registered client never authorised goes', async () => {
    const e = await setUpEnterprise(t, idp);
    const [stale] = await t.dataSource.query(
      `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, token_endpoint_auth_method, created_at)
       VALUES (gen_random_uuid()::text, 'Stale', '{http://127.0.0.1/cb}', '{authorization_code}', 'none', now() - interval '2 days') RETURNING client_id`,
    );
    await t.dataSource.query(`UPDATE oauth_clients SET created_at = now() - interval '2 days' WHERE client_id = $1`, [e.client.client_id]);
    await t.app.get(OAuthCleanupService).deleteExpired();
    const left = await t.dataSource.query('SELECT client_id FROM oauth_clients WHERE client_id = ANY($1)', [[stale.client_id, e.client.client_id]]);
    expect(left).toEqual([{ client_id: e.client.client_id }]);
  });

  it("another organisation's client cannot be named in idJagClients (400 invalid_id_jag_clients), and cannot trade there", async () => {
    const e = await setUpEnterprise(t, idp);
    const other = await setUpEnterprise(t, idp);
    const adminJwt = await sessionFor(t, e.admin.id);
    const refused = await api()
      .put(identityProviderPath(e.organization.id))
      .auth(adminJwt, { type: 'bearer' })
      .send({ issuer: idp.issuer, clientId: 'gateway-test', acceptIdJag: true, idJagClients: [{ clientId: other.client.client_id, projectId: e.project.id }] })
      .expect(400);
    expect(refused.body.code).toBe('invalid_id_jag_clients');
    // Its own client may be named: the same settings with it are saved.
    const own = await createOrganizationClient(t, e.organization.id, adminJwt, 'Second client');
    await connectIdentityProvider(t, e.organization.id, adminJwt, {
      issuer: idp.issuer,
      acceptIdJag: true,
      idJagClients: [
        { clientId: e.client.client_id, projectId: e.project.id },
        { clientId: own.client_id, projectId: e.project.id },
      ],
    });
    // The other organisation's client presenting e's person: routed to its own organisation, where e's person is no member.
    const res = await tradeIdJag(t, other.client, await signedIdJag(idp, idJagClaims(idp, t, { ...e, client: other.client, tenant: other.tenant })));
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The person is not a member of the organisation whose identity provider issued the ID-JAG' });
  });
});
