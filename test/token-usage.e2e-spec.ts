import { AgentTokenService, AGENT_TOKEN_USAGE_RESOLUTION_MS, TokenUsageRecorder } from '@app/credentials';
import { createAgentToken, createProjectWithToken } from './factories';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * `last_used_at` of agent tokens: noted in memory when a token is accepted, written later in
 * one batched UPDATE, at most once a minute per token.
 */
describe('agent token lastUsedAt', () => {
  let t: TestApp;
  let tokens: AgentTokenService;
  let recorder: TokenUsageRecorder;
  beforeAll(async () => {
    t = await startTestApp();
    tokens = t.app.get(AgentTokenService);
    recorder = t.app.get(TokenUsageRecorder);
  });
  afterAll(() => t.close());

  const lastUsed = async (id: string): Promise<Date | null> =>
    (await t.dataSource.query('SELECT last_used_at FROM agent_tokens WHERE id = $1', [id]))[0].last_used_at;

  it('is not written while the token is accepted, only when the recorder flushes', async () => {
    const { id, token } = await createProjectWithToken(t.dataSource);
    const before = Date.now();
    expect(await tokens.resolve(token)).not.toBeNull();
    expect(await lastUsed(id)).toBeNull();
    await recorder.flush();
    const written = await lastUsed(id);
    expect(written).not.toBeNull();
    expect(written!.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('is written at most once a minute per token, for many tokens in one flush', async () => {
    const { project, id, token } = await createProjectWithToken(t.dataSource);
    const second = await createAgentToken(t.dataSource, project);
    await tokens.resolve(token);
    await tokens.resolve(second.token);
    await recorder.flush();
    const first = await lastUsed(id);
    const firstOfSecond = await lastUsed(second.id);
    expect(first).not.toBeNull();
    expect(firstOfSecond).not.toBeNull();
    for (let i = 0; i < 5; i++) await tokens.resolve(token);
    await recorder.flush();
    expect(await lastUsed(id)).toEqual(first);
  });

  it('writes again once the stored time is over a minute old', async () => {
    const { id, token } = await createProjectWithToken(t.dataSource);
    const old = new Date(Date.now() - AGENT_TOKEN_USAGE_RESOLUTION_MS - 5_000);
    await t.dataSource.query('UPDATE agent_tokens SET last_used_at = $2 WHERE id = $1', [id, old]);
    await tokens.resolve(token);
    await recorder.flush();
    expect((await lastUsed(id))!.getTime()).toBeGreaterThan(old.getTime() + AGENT_TOKEN_USAGE_RESOLUTION_MS);
  });

  it('never records a refused token', async () => {
    const { id, token } = await createProjectWithToken(t.dataSource, { revokedAt: new Date() });
    expect(await tokens.resolve(token)).toBeNull();
    await recorder.flush();
    expect(await lastUsed(id)).toBeNull();
  });

  it('flushes what is pending in its shutdown hook (which runs before the database closes)', async () => {
    const { id, token } = await createProjectWithToken(t.dataSource);
    await tokens.resolve(token);
    expect(await lastUsed(id)).toBeNull();
    await recorder.beforeApplicationShutdown();
    expect(await lastUsed(id)).not.toBeNull();
  });
});
