import request from 'supertest';
import { createProject } from './factories';
import { Enterprise, idJagClaims, setUpEnterprise, signedIdJag, tradeIdJag } from './factories/id-jag';
import { sessionFor } from './factories/rest';
import { connectIdentityProvider, identityProviderPath } from './helpers/identity';
import { listToolsRaw } from './helpers/mcp-raw';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

/**
 * SPEC §10: removing a client from `idJagClients`, changing its project, switching `acceptIdJag`
 * off or disconnecting the identity provider ends the tokens already traded through it, at once
 * (in the settings' transaction, one conditional update of the grants). Checked through the MCP
 * endpoint: the token's next call is 401.
 */
describe('Enterprise-Managed Authorization: a settings change ends the tokens traded under the old settings', () => {
  let t: TestApp;
  let idp: TestIdp;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({
      IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true',
      REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000',
      TOKEN_MAX_FAILURES_PER_CLIENT_AND_IP: '100000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  /** An enterprise, a token traded through its client (working on MCP), and the admin's session. */
  async function traded(): Promise<{ e: Enterprise; token: string; adminJwt: string }> {
    const e = await setUpEnterprise(t, idp);
    const res = await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)));
    expect(res.status).toBe(200);
    const token = res.body.access_token as string;
    expect((await listToolsRaw(t.baseUrl, token)).status).toBe(200);
    return { e, token, adminJwt: await sessionFor(t, e.admin.id) };
  }
  const revocations = async (organizationId: string) =>
    (await t.dataSource.query(`SELECT actor_type, metadata->>'reason' AS reason, metadata->>'clientId' AS client FROM audit_events WHERE organization_id = $1 AND action = 'grant.revoked'`, [
      organizationId,
    ])) as { actor_type: string; reason: string; client: string }[];

  it('a change that keeps the client on its project (requireSso, the domains) leaves the token working', async () => {
    const { e, token, adminJwt } = await traded();
    await connectIdentityProvider(t, e.organization.id, adminJwt, {
      issuer: idp.issuer,
      acceptIdJag: true,
      requireSso: false,
      defaultRole: 'member',
      idJagClients: [{ clientId: e.client.client_id, projectId: e.project.id }],
    });
    expect((await listToolsRaw(t.baseUrl, token)).status).toBe(200);
    expect(await revocations(e.organization.id)).toEqual([]);
  });

  it('removing the client from idJagClients ends its token at once', async () => {
    const { e, token, adminJwt } = await traded();
    await connectIdentityProvider(t, e.organization.id, adminJwt, { issuer: idp.issuer, acceptIdJag: true, idJagClients: [] });
    expect((await listToolsRaw(t.baseUrl, token)).status).toBe(401);
    expect(await revocations(e.organization.id)).toEqual([{ actor_type: 'user', reason: 'id_jag_settings_changed', client: e.client.client_id }]);
  });

  it("changing the client's project ends its token; a token traded afterwards works on the new project", async () => {
    const { e, token, adminJwt } = await traded();
    const other = await createProject(t.dataSource, e.organization.id, 'Other project');
    await connectIdentityProvider(t, e.organization.id, adminJwt, { issuer: idp.issuer, acceptIdJag: true, idJagClients: [{ clientId: e.client.client_id, projectId: other.id }] });
    expect((await listToolsRaw(t.baseUrl, token)).status).toBe(401);
    const again = await tradeIdJag(t, e.client, await signedIdJag(idp, idJagClaims(idp, t, e)));
    expect(again.status).toBe(200);
    expect((await listToolsRaw(t.baseUrl, again.body.access_token as string)).status).toBe(200);
    const [grant] = await t.dataSource.query('SELECT project_id FROM oauth_grants WHERE organization_id = $1 AND revoked_at IS NULL', [e.organization.id]);
    expect(grant).toEqual({ project_id: other.id });
  });

  it('switching acceptIdJag off ends the token', async () => {
    const { e, token, adminJwt } = await traded();
    await connectIdentityProvider(t, e.organization.id, adminJwt, { issuer: idp.issuer, acceptIdJag: false, idJagClients: [{ clientId: e.client.client_id, projectId: e.project.id }] });
    expect((await listToolsRaw(t.baseUrl, token)).status).toBe(401);
  });

  it('disconnecting the identity provider ends the token', async () => {
    const { e, token, adminJwt } = await traded();
    await request(t.baseUrl).delete(identityProviderPath(e.organization.id)).auth(adminJwt, { type: 'bearer' }).expect(204);
    expect((await listToolsRaw(t.baseUrl, token)).status).toBe(401);
    expect(await revocations(e.organization.id)).toEqual([{ actor_type: 'user', reason: 'id_jag_settings_changed', client: e.client.client_id }]);
  });

  it('a consent grant of the same client in the organisation is not an ID-JAG grant and is left alone', async () => {
    const { e, adminJwt } = await traded();
    await t.dataSource.query(
      `INSERT INTO oauth_grants (user_id, client_id, organization_id, project_id, permissions, resource) VALUES ($1, $2, $3, $4, '{project:read}', $5)`,
      [e.person.id, e.client.client_id, e.organization.id, e.project.id, t.config.mcpResourceUrl],
    );
    await request(t.baseUrl).delete(identityProviderPath(e.organization.id)).auth(adminJwt, { type: 'bearer' }).expect(204);
    expect(await t.dataSource.query('SELECT id_jag_issuer FROM oauth_grants WHERE organization_id = $1 AND revoked_at IS NULL', [e.organization.id])).toEqual([{ id_jag_issuer: null }]);
  });
});
