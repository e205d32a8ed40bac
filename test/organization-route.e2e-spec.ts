import { Controller, Get, Param } from '@nestjs/common';
import request from 'supertest';
import { API_KEY_PERMISSION_NAMES } from '@app/credential-store';
import { OrganizationRoute, Public, RestAuth, routeProblems } from '@app/credentials';
import { createApiKey, createTeam } from './factories/rest';
import { REST_ERRORS } from './fixtures/rest-errors';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * The organisation check fails closed: a route whose parameter names an organisation declares
 * it (`@OrganizationRoute`), or the application does not start; a declared one is checked.
 */
@Controller('api/probe/:organizationId/things')
class UndeclaredProbeController {
  @Get()
  @RestAuth({ minRole: 'member' })
  list(@Param('organizationId') organizationId: string) {
    return { organizationId };
  }
}

@Controller('api/probe/:organizationId/things')
@OrganizationRoute('organizationId')
class DeclaredProbeController {
  @Get()
  @RestAuth({ minRole: 'member', permission: 'projects:read' })
  list(@Param('organizationId') organizationId: string) {
    return { organizationId };
  }
}

@Controller('api/organizations/:anything/probe')
class UnderOrganizationsProbeController {
  @Get()
  @Public()
  get() {
    return {};
  }
}

describe('routes under an organisation', () => {
  it('a route with :organizationId that declares nothing stops start-up, naming the route', async () => {
    await expect(startTestApp({}, { controllers: [UndeclaredProbeController] })).rejects.toThrow(
      "GET /api/probe/:organizationId/things (UndeclaredProbeController.list): the parameter :organizationId looks like an organisation; declare @OrganizationRoute('organizationId')",
    );
  });

  it('a route under /api/organizations/:x that declares nothing stops start-up, whatever its access', async () => {
    await expect(startTestApp({}, { controllers: [UnderOrganizationsProbeController] })).rejects.toThrow(
      'GET /api/organizations/:anything/probe (UnderOrganizationsProbeController.get): the parameter :anything looks like an organisation',
    );
  });

  it('names a declaration that is not a path parameter, or that sits on a route without @RestAuth or @PageAuth', () => {
    expect(routeProblems('R', 'api/probe/:orgId', { type: 'rest' }, 'organizationId')).toEqual([
      "R declares @OrganizationRoute('organizationId'), which is not one of its path parameters",
    ]);
    expect(routeProblems('R', 'api/probe/:orgId', { type: 'public' }, 'orgId')).toEqual(['R declares @OrganizationRoute but is not a @RestAuth or @PageAuth route']);
    expect(routeProblems('R', 'api/projects/:projectId', { type: 'rest' }, undefined)).toEqual([]);
    expect(routeProblems('R', 'api/x/:organisation_id/y/:orgSlug', { type: 'rest' }, 'organisation_id')).toEqual([
      "R: the parameter :orgSlug looks like an organisation; declare @OrganizationRoute('orgSlug')",
    ]);
  });

  describe('a route that declares :organizationId', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({}, { controllers: [DeclaredProbeController] });
    });
    afterAll(() => t.close());

    const probe = (orgId: string, credential: string) =>
      request(t.baseUrl).get(`/api/probe/${orgId}/things`).set('Authorization', `Bearer ${credential}`);

    it('admits a member of the organisation and its own rk_ key with the permission', async () => {
      const team = await createTeam(t);
      const key = await createApiKey(t.dataSource, team.organization.id, ['projects:read']);
      for (const credential of [team.admin.jwt, team.member.jwt, key.key]) {
        const res = await probe(team.organization.id, credential);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ organizationId: team.organization.id });
      }
    });

    it('answers 404 for another organisation, a non-member, an rk_ key of another organisation, or a malformed id', async () => {
      const team = await createTeam(t);
      const otherKey = await createApiKey(t.dataSource, team.other.id, API_KEY_PERMISSION_NAMES);
      const cases: [string, string][] = [
        [team.other.id, team.admin.jwt],
        [team.organization.id, team.outsider.jwt],
        [team.organization.id, otherKey.key],
        ['not-a-uuid', team.admin.jwt],
      ];
      for (const [orgId, credential] of cases) {
        const res = await probe(orgId, credential);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(REST_ERRORS.organizationNotFound);
      }
    });
  });
});
