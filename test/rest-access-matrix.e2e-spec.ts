import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { API_KEY_PERMISSION_NAMES, ApiKeyPermission, generateToken } from '@app/credentials';
import { addMember, createAgentToken, createProject } from './factories';
import { createApiKey, createPersonWithoutPassword, createTeam } from './factories/rest';
import { mountedRoutes } from './helpers/routes';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * The access matrix of SPEC §6 over every REST route of this surface: who gets which status.
 * Each cell is a real request with fresh resources, so a success in one cell never changes
 * another. Columns:
 *   admin      session of an admin of the organisation
 *   member     session of a member (role member) of the organisation
 *   outsider   session of an admin of another organisation
 *   rkWith     rk_ key of the organisation holding the route's permission (every permission
 *              when the route has none)
 *   rkWithout  rk_ key of the organisation holding every other permission
 *   rkOther    rk_ key of another organisation holding every permission
 *   dga        a live agent token of the organisation
 *   none       no credential
 *   unknown    a credential of no known form
 *   rkUnknown  a well-formed rk_ key that does not exist
 */
const ACTORS = ['admin', 'member', 'outsider', 'rkWith', 'rkWithout', 'rkOther', 'dga', 'none', 'unknown', 'rkUnknown'] as const;
type Actor = (typeof ACTORS)[number];

interface Team {
  organization: { id: string };
  other: { id: string };
  admin: { id: string; jwt: string; email: string; password: string };
  member: { id: string; jwt: string };
  outsider: { id: string; jwt: string };
}

interface Call {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  body?: object;
}

interface Row {
  route: string;
  permission?: ApiKeyPermission;
  /** Builds the request with fresh resources for one cell. */
  call: (t: TestApp, team: Team) => Promise<Call>;
  /** Statuses in ACTORS order. */
  expected: string;
}

const org = (team: Team) => `/api/organizations/${team.organization.id}`;

const ROWS: Row[] = [
  {
    route: 'POST /api/auth/signup',
    call: async () => ({
      method: 'post',
      path: '/api/auth/signup',
      body: { email: `m-${randomUUID()}@example.test`, password: 'correct horse battery', name: 'M', organizationName: 'O' },
    }),
    //        admin member outsider rkWith rkWithout rkOther dga none unknown rkUnknown
    expected: '201   201    201      201    201       201     201 201  201     201',
  },
  {
    route: 'POST /api/auth/login',
    call: async (_t, team) => ({ method: 'post', path: '/api/auth/login', body: { email: team.admin.email, password: team.admin.password } }),
    expected: '200   200    200      200    200       200     200 200  200     200',
  },
  { route: 'GET /api/me', call: async () => ({ method: 'get', path: '/api/me' }), expected: '200 200 200 403 403 403 403 401 401 401' },
  { route: 'GET /api/permissions', call: async () => ({ method: 'get', path: '/api/permissions' }), expected: '200 200 200 200 200 200 403 401 401 401' },
  { route: 'GET /api/organizations', call: async () => ({ method: 'get', path: '/api/organizations' }), expected: '200 200 200 403 403 403 403 401 401 401' },
  {
    route: 'POST /api/organizations',
    call: async () => ({ method: 'post', path: '/api/organizations', body: { name: 'New org' } }),
    expected: '201 201 201 403 403 403 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId',
    call: async (_t, team) => ({ method: 'get', path: org(team) }),
    expected: '200 200 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/projects',
    permission: 'projects:read',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/projects` }),
    expected: '200 200 404 200 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/projects',
    permission: 'projects:write',
    call: async (_t, team) => ({ method: 'post', path: `${org(team)}/projects`, body: { name: 'P' } }),
    expected: '201 403 404 201 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/projects/:projectId',
    permission: 'projects:read',
    call: async (t, team) => ({ method: 'get', path: `${org(team)}/projects/${(await createProject(t.dataSource, team.organization.id)).id}` }),
    expected: '200 200 404 200 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/projects/:projectId',
    permission: 'projects:write',
    call: async (t, team) => ({ method: 'delete', path: `${org(team)}/projects/${(await createProject(t.dataSource, team.organization.id)).id}` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/members',
    permission: 'members:read',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/members` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/members',
    call: async (t, team) => ({ method: 'post', path: `${org(team)}/members`, body: { email: (await createPersonWithoutPassword(t.dataSource)).email, role: 'member' } }),
    expected: '201 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'PATCH /api/organizations/:orgId/members/:userId',
    call: async (t, team) => ({ method: 'patch', path: `${org(team)}/members/${await freshMember(t, team)}`, body: { role: 'admin' } }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'DELETE /api/organizations/:orgId/members/:userId',
    call: async (t, team) => ({ method: 'delete', path: `${org(team)}/members/${await freshMember(t, team)}` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/api-keys',
    call: async (_t, team) => ({ method: 'post', path: `${org(team)}/api-keys`, body: { name: 'k', permissions: ['projects:read'] } }),
    expected: '201 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/api-keys',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/api-keys` }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'POST /api/organizations/:orgId/api-keys/:keyId/revoke',
    call: async (t, team) => ({
      method: 'post',
      path: `${org(team)}/api-keys/${(await createApiKey(t.dataSource, team.organization.id, ['projects:read'])).id}/revoke`,
    }),
    expected: '200 403 404 403 403 404 403 401 401 401',
  },
  {
    route: 'GET /api/organizations/:orgId/audit-events',
    permission: 'audit:read',
    call: async (_t, team) => ({ method: 'get', path: `${org(team)}/audit-events` }),
    expected: '200 403 404 200 403 404 403 401 401 401',
  },
];

async function freshMember(t: TestApp, team: Team): Promise<string> {
  const user = await createPersonWithoutPassword(t.dataSource);
  await addMember(t.dataSource, team.organization.id, user.id, 'member');
  return user.id;
}

async function credentials(t: TestApp, team: Team, permission: ApiKeyPermission | undefined): Promise<Record<Actor, string | undefined>> {
  const others = API_KEY_PERMISSION_NAMES.filter((p) => p !== permission);
  const project = await createProject(t.dataSource, team.organization.id);
  return {
    admin: team.admin.jwt,
    member: team.member.jwt,
    outsider: team.outsider.jwt,
    rkWith: (await createApiKey(t.dataSource, team.organization.id, permission ? [permission] : API_KEY_PERMISSION_NAMES)).key,
    rkWithout: (await createApiKey(t.dataSource, team.organization.id, permission ? others : ['projects:read'])).key,
    rkOther: (await createApiKey(t.dataSource, team.other.id, API_KEY_PERMISSION_NAMES)).key,
    dga: (await createAgentToken(t.dataSource, project)).token,
    none: undefined,
    unknown: 'not-a-credential',
    rkUnknown: generateToken('rk_'),
  };
}

describe('REST access matrix (SPEC §6)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('covers every REST and public API route this surface mounts', () => {
    const mine = mountedRoutes(t.app).filter((r) =>
      /^(AuthController|OrganizationsController|ProjectsController|MembersController|ApiKeysController|PermissionsController|AuditEventsController)\./.test(r.handler),
    );
    expect(mine.map((r) => `${r.method} ${r.path}`).sort()).toEqual(ROWS.map((r) => r.route).sort());
  });

  it.each(ROWS.map((row) => [row.route, row] as const))('%s', async (_route, row) => {
    const team = (await createTeam(t)) as unknown as Team;
    const creds = await credentials(t, team, row.permission);
    const expected = row.expected.trim().split(/\s+/).map(Number);
    expect(expected).toHaveLength(ACTORS.length);
    const actual: Record<string, number> = {};
    for (const actor of ACTORS) {
      const call = await row.call(t, team);
      let req = request(t.baseUrl)[call.method](call.path).set('Origin', 'https://elsewhere.example');
      const credential = creds[actor];
      if (credential) req = req.set('Authorization', `Bearer ${credential}`);
      const res = await (call.body ? req.send(call.body) : req);
      actual[actor] = res.status;
      // The REST surface never grants CORS (SPEC §6).
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(actual).toEqual(Object.fromEntries(ACTORS.map((a, i) => [a, expected[i]])));
  });
});
