import { desiredRole } from './roles-from-groups';

describe('desiredRole', () => {
  const provider = {
    groupsClaim: 'groups',
    defaultRole: 'member' as const,
    roleMappings: [
      { group: 'gw-admins', role: 'admin' as const },
      { group: 'gw-users', role: 'member' as const },
    ],
  };

  it('gives admin when any mapped group says admin', () => {
    expect(desiredRole(provider, { groups: ['gw-users', 'gw-admins'] })).toEqual({ role: 'admin', groupsRole: 'admin' });
  });

  it('gives the default role when the groups claim maps nothing, and says so (a demotion)', () => {
    expect(desiredRole(provider, { groups: ['other'] })).toEqual({ role: 'member', groupsRole: 'member' });
    expect(desiredRole(provider, { groups: 'gw-admins' })).toEqual({ role: 'admin', groupsRole: 'admin' });
  });

  it('changes no role when the token lacks the claim or no groups claim is configured', () => {
    expect(desiredRole(provider, {})).toEqual({ role: 'member', groupsRole: null });
    expect(desiredRole({ ...provider, groupsClaim: null }, { groups: ['gw-admins'] })).toEqual({ role: 'member', groupsRole: null });
  });
});
