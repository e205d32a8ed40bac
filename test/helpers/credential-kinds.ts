import request from 'supertest';
import { AGENT_PERMISSION_NAMES } from '@app/capabilities';
import { insertConnectedClient } from '../factories/grants';
import type { createTeam } from '../factories/rest';
import type { TestApp } from './test-app';

export type CredentialKind = 'oauth' | 'id_jag' | 'derived';
type Team = Awaited<ReturnType<typeof createTeam>>;

/** A token of one credential kind for one project: OAuth (the team's member), traded for an ID-JAG, or derived from a new service key. */
export async function tokenOfKind(t: TestApp, team: Team, project: { id: string }, kind: CredentialKind): Promise<string> {
  if (kind === 'derived') {
    const org = `/api/organizations/${team.organization.id}`;
    const auth = { Authorization: `Bearer ${team.admin.jwt}` };
    const key = (await request(t.baseUrl).post(`${org}/agent-service-keys`).set(auth).send({ name: 'machine' }).expect(201)).body as { id: string };
    const derived = await request(t.baseUrl).post(`${org}/agent-service-keys/${key.id}/tokens`).set(auth).send({ projectId: project.id }).expect(201);
    return (derived.body as { token: string }).token;
  }
  const { grantId, accessToken } = await insertConnectedClient(t.dataSource, {
    userId: team.member.id,
    organizationId: team.organization.id,
    projectId: project.id,
    permissions: [...AGENT_PERMISSION_NAMES],
  });
  if (kind === 'id_jag') await t.dataSource.query(`UPDATE oauth_grants SET id_jag_issuer = 'https://idp.example.test' WHERE id = $1`, [grantId]);
  return accessToken;
}
