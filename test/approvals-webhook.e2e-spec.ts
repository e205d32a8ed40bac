import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';
import { createProject } from './factories';
import { insertConnectedClient } from './factories/grants';
import { createApiKey, createTeam } from './factories/rest';
import { connectClient } from './helpers/mcp';
import { savePolicy } from './helpers/policy';
import { startSinkReceiver, waitFor } from './helpers/sink-receiver';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * The approval webhook (SPEC §10): set by an admin with a recent sign-in (its secret shown once,
 * stored encrypted), told of each new approval, signed per Standard Webhooks and verified here
 * with the same library, retried after a refusal, never carrying the call's arguments. The
 * receiver is plain HTTP on 127.0.0.1 under OUTBOUND_ALLOW_LOOPBACK.
 */
describe('the approval webhook', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ OUTBOUND_ALLOW_LOOPBACK: 'true' });
  });
  afterAll(() => t.close());

  it('is an admin session’s with a recent sign-in; the secret is shown once and stored encrypted', async () => {
    const team = await createTeam(t);
    const path = `/api/organizations/${team.organization.id}/approval-webhook`;
    await request(t.baseUrl).put(path).auth(team.member.jwt, { type: 'bearer' }).send({ url: 'https://93.184.215.14/hook' }).expect(403);
    const { key } = await createApiKey(t.dataSource, team.organization.id, ['projects:read', 'audit:read']);
    await request(t.baseUrl).put(path).set('Authorization', `Bearer ${key}`).send({ url: 'https://93.184.215.14/hook' }).expect(403);
    await request(t.baseUrl).put(path).auth(team.outsider.jwt, { type: 'bearer' }).send({ url: 'https://93.184.215.14/hook' }).expect(404);
    expect((await request(t.baseUrl).put(path).auth(team.admin.jwt, { type: 'bearer' }).send({ url: 'ftp://example.test/' }).expect(400)).body).toMatchObject({ code: 'invalid_webhook_url' });
    expect((await request(t.baseUrl).put(path).auth(team.admin.jwt, { type: 'bearer' }).send({ url: 'https://10.0.0.5/hook' }).expect(400)).body.message).toContain(
      'approval webhooks reach private hosts only when OUTBOUND_ALLOW_HOSTS names them',
    );
    await request(t.baseUrl).put(path).auth(team.admin.jwt, { type: 'bearer' }).send({}).expect(400);
    await request(t.baseUrl).delete(path).auth(team.admin.jwt, { type: 'bearer' }).expect(404);

    const saved = await request(t.baseUrl).put(path).auth(team.admin.jwt, { type: 'bearer' }).send({ url: 'https://93.184.215.14/hook' }).expect(200);
    expect(saved.body).toEqual({ url: 'https://93.184.215.14/hook', signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{40,}$/) });
    const [row] = await t.dataSource.query(`SELECT signing_secret FROM approval_webhooks WHERE organization_id = $1`, [team.organization.id]);
    expect(row.signing_secret).toMatch(/^v1:/);
    expect(row.signing_secret).not.toContain(saved.body.signingSecret.slice(6));

    await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE user_id = $1`, [team.admin.id]);
    expect((await request(t.baseUrl).delete(path).auth(team.admin.jwt, { type: 'bearer' }).expect(401)).body).toMatchObject({ code: 'reauthentication_required' });
    await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() WHERE user_id = $1`, [team.admin.id]);
    await request(t.baseUrl).delete(path).auth(team.admin.jwt, { type: 'bearer' }).expect(204);
    const actions: { action: string }[] = await t.dataSource.query(`SELECT action FROM audit_events WHERE organization_id = $1 AND action LIKE 'approval_webhook.%' ORDER BY created_at`, [team.organization.id]);
    expect(actions.map((a) => a.action)).toEqual(['approval_webhook.updated', 'approval_webhook.deleted']);
  });

  it('tells the receiver of a new approval, signed per Standard Webhooks, after one refusal, without the arguments', async () => {
    const team = await createTeam(t);
    const project = await createProject(t.dataSource, team.organization.id, 'Hooked');
    let refusals = 1;
    const receiver = await startSinkReceiver(() => (refusals-- > 0 ? 503 : 200));
    const agent = await connectClient(t.baseUrl, '2025-06-18', {
      Authorization: `Bearer ${(await insertConnectedClient(t.dataSource, { userId: team.member.id, organizationId: team.organization.id, projectId: project.id, permissions: [...AGENT_PERMISSION_NAMES] })).accessToken}`,
    });
    try {
      const { signingSecret } = (
        await request(t.baseUrl).put(`/api/organizations/${team.organization.id}/approval-webhook`).auth(team.admin.jwt, { type: 'bearer' }).send({ url: `${receiver.url}/approvals` }).expect(200)
      ).body as { signingSecret: string };
      await savePolicy(t, team, [{ id: 'ask', tools: ['create_task'], effect: 'approve', approval: { approvers: 'admins' } }]);
      const held = await agent.client.callTool({ name: 'create_task', arguments: { title: 'Secret plans', description: 'the arguments stay home' } });
      const id = /\/approvals\/([0-9a-f-]{36})/.exec((held.content as { text: string }[])[0].text)![1];
      await waitFor(() => receiver.accepted.length === 1, 'the webhook delivery');
      expect(receiver.refusedCount()).toBe(1);
      const [delivery] = receiver.accepted;
      expect(delivery.path).toBe('/approvals');
      const verified = new Webhook(signingSecret).verify(delivery.body, {
        'webhook-id': String(delivery.headers['webhook-id']),
        'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
        'webhook-signature': String(delivery.headers['webhook-signature']),
      }) as { type: string; data: Record<string, unknown> };
      expect(verified).toMatchObject({
        type: 'approval.requested',
        data: { approvalId: id, organizationId: team.organization.id, projectId: project.id, tool: 'create_task', ruleId: 'ask', url: `${t.baseUrl}/approvals/${id}`, expiresAt: expect.any(String) },
      });
      expect(delivery.headers['webhook-id']).toBe(id);
      expect(delivery.body).not.toContain('Secret plans');
      expect(delivery.body).not.toContain('the arguments stay home');
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(delivery.body, delivery.headers as Record<string, string>)).toThrow();

      // The same call again while pending: the same approval, no second notice.
      await agent.client.callTool({ name: 'create_task', arguments: { title: 'Secret plans', description: 'the arguments stay home' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.accepted).toHaveLength(1);
    } finally {
      await agent.close();
      await receiver.close();
    }
  });
});
