import { createAgentToken, createOrganization, createProject } from './factories';
import { createOrganizationWithAdmin } from './factories/machine';
import { callTool, Generation } from './helpers/mcp-raw';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * The two rules every speed-up of the MCP path keeps. (1) Nothing of one request leaks into
 * another: many tokens of many projects at once, each answer names its own project. (2) A
 * revocation committed before a request starts is refused by that request, with no pause in
 * between (the same across two instances is in scale-out.e2e-spec.ts).
 */
describe('MCP requests at once', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('answers 500 interleaved tools/call from 20 tokens on 20 projects, each with its own project', async () => {
    const tenants: { project: { id: string; name: string }; token: string; taskId: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const organization = await createOrganization(t.dataSource);
      const project = await createProject(t.dataSource, organization.id, `Concurrent project ${i}`);
      const { token } = await createAgentToken(t.dataSource, project);
      const created = await callTool(t.baseUrl, token, 'modern', 'create_task', { title: `Task of project ${i}` });
      tenants.push({ project, token, taskId: created.body.result!.structuredContent.task.id as string });
    }

    const calls = Array.from({ length: 500 }, (_, n) => {
      const tenant = tenants[(n * 7) % 20];
      const generation: Generation = n % 2 ? 'legacy' : 'modern';
      const tool = n % 3 === 0 ? 'get_project' : 'get_task';
      // Every tenth call is a 2025 batch of one, served by the SDK's generic path beside the direct one.
      return { tenant, generation, tool, id: n + 1, batch: n % 10 === 5 };
    });
    const answers = await Promise.all(
      calls.map((c) =>
        callTool(t.baseUrl, c.tenant.token, c.generation, c.tool, c.tool === 'get_task' ? { id: c.tenant.taskId } : {}, { id: c.id, batch: c.batch }),
      ),
    );

    answers.forEach((answer, n) => {
      const { tenant, tool, id } = calls[n];
      expect(answer.status).toBe(200);
      expect(answer.body.id).toBe(id);
      expect(answer.body.error).toBeUndefined();
      const content = answer.body.result!.structuredContent;
      if (tool === 'get_project') {
        expect(content).toMatchObject({ id: tenant.project.id, name: tenant.project.name });
      } else {
        expect(content.task).toMatchObject({ id: tenant.taskId, projectId: tenant.project.id });
      }
    });
  }, 120_000);

  it('refuses, at once, a token whose service key was revoked: 50 times in a row, no pause', async () => {
    const { organization, admin } = await createOrganizationWithAdmin(t.app, t.dataSource);
    const project = await createProject(t.dataSource, organization.id);
    const rest = (path: string, body?: unknown) =>
      fetch(`${t.baseUrl}/api/organizations/${organization.id}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.session}` },
        body: JSON.stringify(body ?? {}),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, any> }));

    for (let round = 0; round < 50; round++) {
      const generation: Generation = round % 2 ? 'legacy' : 'modern';
      const key = await rest('/agent-service-keys', { name: `key ${round}` });
      expect(key.status).toBe(201);
      const derived = await rest(`/agent-service-keys/${key.body.id}/tokens`, { projectId: project.id });
      expect(derived.status).toBe(201);
      const before = await callTool(t.baseUrl, derived.body.token, generation, 'get_project', {});
      expect(before.status).toBe(200);

      const revoked = await rest(`/agent-service-keys/${key.body.id}/revoke`);
      expect(revoked.status).toBe(200);
      const after = await callTool(t.baseUrl, derived.body.token, generation, 'get_project', {});
      expect(after.status).toBe(401);
    }
  }, 180_000);
});
