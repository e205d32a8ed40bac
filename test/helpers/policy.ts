import request from 'supertest';
import type { createTeam } from '../factories/rest';
import type { TestApp } from './test-app';

type Team = Awaited<ReturnType<typeof createTeam>>;

/** Saves the organisation's policy as its admin, from whatever version it is at. */
export async function savePolicy(t: TestApp, team: Team, rules: object[]): Promise<void> {
  const path = `/api/organizations/${team.organization.id}/policy`;
  const { version } = (await request(t.baseUrl).get(path).set('Authorization', `Bearer ${team.admin.jwt}`).expect(200)).body as { version: number };
  await request(t.baseUrl).put(path).set('Authorization', `Bearer ${team.admin.jwt}`).send({ version, rules }).expect(200);
}
