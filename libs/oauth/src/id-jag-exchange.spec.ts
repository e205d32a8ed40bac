import { OAuthError } from './oauth.errors';
import { grantedPermissions, permissionsOfRole } from './id-jag-scope';

describe('the scope an ID-JAG trade grants', () => {
  it('is the asserted scope when none is requested', () => {
    expect(grantedPermissions(undefined, 'tasks:read project:read', 'member')).toEqual(['project:read', 'tasks:read']);
  });

  it('is the intersection of requested, asserted and the role when one is requested, unknown names ignored', () => {
    expect(grantedPermissions('tasks:read tasks:delete offline_access', 'project:read tasks:read', 'member')).toEqual(['tasks:read']);
  });

  it("is what the role allows, narrowed by the request, when the ID-JAG names no scope", () => {
    expect(grantedPermissions(undefined, undefined, 'admin')).toEqual(permissionsOfRole('admin'));
    expect(grantedPermissions('tasks:write', undefined, 'member')).toEqual(['tasks:write']);
  });

  it('refuses an empty intersection with invalid_scope naming the sets compared', () => {
    let error: unknown;
    try {
      grantedPermissions('tasks:delete', 'project:read', 'member');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({
      error: 'invalid_scope',
      description:
        "No scope is left to grant: the requested scope (tasks:delete), the ID-JAG's scope (project:read), what the person's role allows (project:read tasks:read tasks:write tasks:delete) have none in common",
    });
    expect(() => grantedPermissions('unknown:scope', 'project:read', 'member')).toThrow(
      "No scope is left to grant: the requested scope (no known scope), the ID-JAG's scope (project:read), what the person's role allows (project:read tasks:read tasks:write tasks:delete) have none in common",
    );
  });
});
