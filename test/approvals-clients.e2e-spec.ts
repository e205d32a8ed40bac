import request from 'supertest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import { AGENT_PERMISSION_NAMES, CapabilityRegistry } from '@app/capabilities';
import { AppConfig, derivedKey } from '@app/config';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { createTeam } from './factories/rest';
import { savePolicy } from './helpers/policy';
import { startTestApp, TestApp } from './helpers/test-app';

type Team = Awaited<ReturnType<typeof createTeam>>;
interface Sent {
  headers: Record<string, string>;
  body: { method?: string; params?: { requestState?: string; inputResponses?: unknown } };
}

/** Real clients through a call held for approval: SDK v2 (2025-11-25 and 2026-07-28) and SDK v1. */
describe('approvals through real MCP clients', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  async function setUp() {
    const team = await createTeam(t);
    const project = await createProject(t.dataSource, team.organization.id);
    const connect = () =>
      insertConnectedClient(t.dataSource, { userId: team.member.id, organizationId: team.organization.id, projectId: project.id, permissions: [...AGENT_PERMISSION_NAMES] });
    await savePolicy(t, team, [{ id: 'ask', tools: ['create_task'], effect: 'approve', approval: { approvers: 'admins' } }]);
    const { accessToken, grantId } = await connect();
    return { team, project, token: accessToken, grantId, otherToken: (await connect()).accessToken };
  }
  const approve = (team: Team, id: string) =>
    request(t.baseUrl).post(`/api/organizations/${team.organization.id}/approvals/${id}/decision`).auth(team.admin.jwt, { type: 'bearer' }).send({ decision: 'approve' }).expect(200);
  const spyCreate = () => jest.spyOn(t.app.get(CapabilityRegistry).toolsetFor(AGENT_PERMISSION_NAMES).byName.get('create_task')!.definition, 'handle');
  const textOf = (result: { content?: unknown }) => (result.content as { text: string }[])[0].text;
  const statusOf = async (id: string) => ((await t.dataSource.query(`SELECT status FROM approvals WHERE id = $1`, [id])) as { status: string }[])[0].status;

  /** The SDK v2 client pinned to 2026-07-28, declaring URL-mode elicitation and accepting at once; every request it sends is kept. */
  async function modernClient(token: string, urlElicitation = true) {
    const sent: Sent[] = [];
    const fetchKeeping = async (input: string | URL | Request, init?: RequestInit) => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
      if (typeof init?.body === 'string') sent.push({ headers, body: JSON.parse(init.body) });
      return fetch(input, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: fetchKeeping });
    const client = new Client(
      { name: 'approvals-e2e', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: urlElicitation ? { elicitation: { url: {} } } : {} },
    );
    const elicitations: { mode?: string; url?: string; message: string }[] = [];
    if (urlElicitation) {
      client.setRequestHandler('elicitation/create', async (req) => {
        elicitations.push(req.params as { mode?: string; url?: string; message: string });
        return { action: 'accept' };
      });
    }
    await client.connect(transport);
    return { client, sent, elicitations };
  }

  it('2026-07-28: the InputRequiredResult names the page, the SDK retries at once with the state and gets "waiting"; after approval the call runs once', async () => {
    const m = await setUp();
    const agent = await modernClient(m.token);
    try {
      const handle = spyCreate();
      const waiting = await agent.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      const [{ id }] = await t.dataSource.query(`SELECT id FROM approvals WHERE organization_id = $1`, [m.team.organization.id]);
      const url = `${t.baseUrl}/approvals/${id}`;
      expect(agent.elicitations).toEqual([expect.objectContaining({ mode: 'url', url, message: expect.stringContaining(url) })]);
      expect(waiting).toMatchObject({ isError: true, content: [{ type: 'text', text: `Waiting for approval: ${url} — call again once it is approved.` }] });
      const calls = agent.sent.filter((s) => s.body.method === 'tools/call');
      expect(calls).toHaveLength(2);
      expect(calls[1].body.params?.requestState).toEqual(expect.any(String));
      expect(await statusOf(id)).toBe('pending');
      expect(handle).not.toHaveBeenCalled();

      await approve(m.team, id);
      const ran = await agent.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      expect(ran.isError).toBeFalsy();
      expect(handle).toHaveBeenCalledTimes(1);
      expect(await statusOf(id)).toBe('consumed');
    } finally {
      await agent.client.close();
    }
  });

  it('2026-07-28 without elicitation.url: the tool error with the URL', async () => {
    const m = await setUp();
    const agent = await modernClient(m.token, false);
    try {
      const held = await agent.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      expect(held.isError).toBe(true);
      expect(textOf(held)).toMatch(new RegExp(`^This call needs a person's approval \\(rule "ask"\\): ${t.baseUrl}/approvals/[0-9a-f-]{36} — call again once it is approved\\.$`));
    } finally {
      await agent.client.close();
    }
  });

  it('a tampered, expired or another credential’s requestState is -32602 invalid_request_state and consumes nothing', async () => {
    const m = await setUp();
    const agent = await modernClient(m.token);
    try {
      const handle = spyCreate();
      await agent.client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } });
      const [{ id }] = await t.dataSource.query(`SELECT id FROM approvals WHERE organization_id = $1`, [m.team.organization.id]);
      await approve(m.team, id);
      const retry = agent.sent.filter((s) => s.body.method === 'tools/call')[1];
      const state = retry.body.params!.requestState!;
      const resend = (requestState: string, token = m.token) =>
        request(t.baseUrl)
          .post('/api/mcp')
          .set({ ...retry.headers, authorization: `Bearer ${token}` })
          .send({ ...retry.body, id: 99, params: { ...retry.body.params, requestState } });
      const refusedWith = async (requestState: string, token?: string) => {
        const answer = await resend(requestState, token);
        expect(answer.body.error).toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } });
      };
      const [body, mac] = state.split('.').slice(1);
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { p: { approvalId: string } };
      await refusedWith(`v1.${Buffer.from(JSON.stringify({ ...payload, p: { approvalId: '00000000-0000-4000-8000-000000000000' } })).toString('base64url')}.${mac}`);
      await refusedWith(`${state.slice(0, -2)}AA`);
      await refusedWith(state, m.otherToken);
      // Minted with the gateway's own key and binding, but already expired.
      const config = t.app.get(AppConfig);
      const key = derivedKey(config.secretsKeys[0]!, 'mcp-request-state');
      const bound = createRequestStateCodec({ key, ttlSeconds: 1, bind: () => `grant:${m.grantId}` });
      const expired = await bound.mint({ approvalId: id }, {} as never);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      await refusedWith(expired);
      expect(handle).not.toHaveBeenCalled();
      expect(await statusOf(id)).toBe('approved');

      const honoured = await resend(state);
      expect(honoured.body.result?.isError).toBeFalsy();
      expect(handle).toHaveBeenCalledTimes(1);
      expect(await statusOf(id)).toBe('consumed');
    } finally {
      await agent.client.close();
    }
  });

  it('2025-11-25: the SDK v2 client gets -32042 with the page; approved, the retry runs', async () => {
    const m = await setUp();
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${m.token}` } } });
    const client = new Client({ name: 'approvals-e2e', version: '1.0.0' }, { supportedProtocolVersions: ['2025-11-25'], capabilities: { elicitation: { url: {} } } });
    await client.connect(transport);
    try {
      const error = (await client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } }).then(
        () => null,
        (e: unknown) => e,
      )) as { code: number; message: string; data?: { elicitations: { url: string; elicitationId: string }[] } } | null;
      expect(error?.code).toBe(-32042);
      const [elicitation] = error!.data!.elicitations;
      expect(elicitation.url).toBe(`${t.baseUrl}/approvals/${elicitation.elicitationId}`);
      await approve(m.team, elicitation.elicitationId);
      expect((await client.callTool({ name: 'create_task', arguments: { title: 'Ship it' } })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('the SDK v1 client at its default version sees -32042 with the URL in the message; pinned to 2025-06-18, the tool error with the URL', async () => {
    const m = await setUp();
    const v1 = async (pin?: string) => {
      // Pinning: the client's initialize offers the older revision, as a client at that revision does.
      const pinning = async (input: string | URL | Request, init?: RequestInit) => {
        if (pin && typeof init?.body === 'string' && init.body.includes('"initialize"')) {
          init = { ...init, body: init.body.replace(/"protocolVersion":"[^"]+"/, `"protocolVersion":"${pin}"`) };
        }
        return fetch(input, init);
      };
      const client = new ClientV1({ name: 'approvals-e2e-v1', version: '1.0.0' });
      await client.connect(new TransportV1(new URL(`${t.baseUrl}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${m.token}` } }, fetch: pinning }));
      return client;
    };
    const latest = await v1();
    try {
      const error = (await latest.callTool({ name: 'create_task', arguments: { title: 'From v1' } }).then(
        () => null,
        (e: unknown) => e,
      )) as { code: number; message: string } | null;
      expect(error?.code).toBe(-32042);
      expect(error!.message).toMatch(new RegExp(`${t.baseUrl}/approvals/[0-9a-f-]{36}`));
    } finally {
      await latest.close();
    }
    const pinned = await v1('2025-06-18');
    try {
      const held = await pinned.callTool({ name: 'create_task', arguments: { title: 'From v1, pinned' } });
      expect(held.isError).toBe(true);
      expect(textOf(held as { content?: unknown })).toMatch(new RegExp(`${t.baseUrl}/approvals/[0-9a-f-]{36} — call again once it is approved\\.$`));
    } finally {
      await pinned.close();
    }
  });
});
