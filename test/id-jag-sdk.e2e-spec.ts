import { Client, CrossAppAccessProvider, discoverAndRequestJwtAuthGrant, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { Enterprise, idTokenFromIdp, JWT_BEARER, setUpEnterprise } from './factories/id-jag';
import { startTestApp, TestApp } from './helpers/test-app';
import { startTestIdp, TestIdp } from './helpers/test-idp';

/**
 * The MCP SDK v2 client's `CrossAppAccessProvider` end to end: the person's ID token from the
 * enterprise IdP (the tests' oidc-provider, code flow with PKCE), an ID-JAG for the gateway by
 * RFC 8693 token exchange at that IdP (`discoverAndRequestJwtAuthGrant`), the gateway's access
 * token by the jwt-bearer grant (client_secret_basic), then `tools/list` and `tools/call` on the
 * project the organisation's admin set for that client. No registration, no consent page.
 */
describe('Enterprise-Managed Authorization with the MCP SDK client', () => {
  let t: TestApp;
  let idp: TestIdp;
  let e: Enterprise;

  beforeAll(async () => {
    idp = await startTestIdp();
    t = await startTestApp({ IDENTITY_PROVIDER_ALLOW_LOOPBACK: 'true', REGISTRATION_RATE_LIMIT_PER_MINUTE: '10000' });
    e = await setUpEnterprise(t, idp, { tenant: null });
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  it('gets an ID-JAG from the IdP, trades it for a token and calls tools on the configured project', async () => {
    const idToken = await idTokenFromIdp(idp, e);
    const idJags: string[] = [];
    const tokenRequests: URLSearchParams[] = [];
    const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = String(input instanceof Request ? input.url : input);
      if (url === `${t.baseUrl}/api/agent/oauth/token` && typeof init?.body === 'string') tokenRequests.push(new URLSearchParams(init.body));
      else if (url === `${t.baseUrl}/api/agent/oauth/token` && init?.body instanceof URLSearchParams) tokenRequests.push(new URLSearchParams(init.body));
      return fetch(input, init);
    };
    const provider = new CrossAppAccessProvider({
      clientId: e.client.client_id,
      clientSecret: e.client.client_secret,
      expectedIssuer: t.config.issuer,
      fetchFn: recordingFetch,
      assertion: async (ctx) => {
        const grant = await discoverAndRequestJwtAuthGrant({
          idpUrl: idp.issuer,
          audience: ctx.authorizationServerUrl,
          resource: ctx.resourceUrl,
          idToken,
          clientId: e.idpClient.clientId,
          clientSecret: e.idpClient.clientSecret,
          scope: ctx.scope,
          fetchFn: ctx.fetchFn,
        });
        idJags.push(grant.jwtAuthGrant);
        return grant.jwtAuthGrant;
      },
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/mcp`), { authProvider: provider, fetch: recordingFetch });
    const client = new Client({ name: 'enterprise-ai-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      // The ID-JAG the IdP issued names the gateway and this client, and was traded once with the jwt-bearer grant.
      expect(idJags).toHaveLength(1);
      expect(decodeJwt(idJags[0])).toMatchObject({ iss: idp.issuer, sub: e.person.sub, aud: t.config.issuer, client_id: e.client.client_id, resource: t.config.mcpResourceUrl });
      expect(tokenRequests.map((form) => form.get('grant_type'))).toEqual([JWT_BEARER]);
      const tokens = provider.tokens()!;
      expect(tokens.access_token).toMatch(/^dga_/);
      expect(tokens.refresh_token).toBeUndefined();
      expect(tokens.expires_in).toBe(3600);
      expect(tokens.scope).toBe('project:read tasks:read tasks:write tasks:delete');

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['get_project', 'create_task', 'list_tasks']));
      const project = await client.callTool({ name: 'get_project', arguments: {} });
      expect(project.structuredContent).toMatchObject({ id: e.project.id, organization: { id: e.organization.id } });
      const created = await client.callTool({ name: 'create_task', arguments: { title: 'From the enterprise client' } });
      expect(created.isError).toBeFalsy();
      const [task] = await t.dataSource.query('SELECT project_id FROM tasks WHERE title = $1', ['From the enterprise client']);
      expect(task.project_id).toBe(e.project.id);
    } finally {
      await client.close();
    }
  });
});
