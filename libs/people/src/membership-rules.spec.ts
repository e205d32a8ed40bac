import type { MembershipRole } from '@app/tenancy';
import { handOverTarget, lastAdminRefusal, type MembershipChange } from './membership-rules';
import { HandOverToSelfError, LastAdminError } from './people.errors';

const remove: MembershipChange = { kind: 'remove' };
const toMember: MembershipChange = { kind: 'role', to: 'member' };
const toAdmin: MembershipChange = { kind: 'role', to: 'admin' };

describe('lastAdminRefusal: who may be removed or change role, as far as the admins go', () => {
  it.each<[string, MembershipRole, MembershipChange, number, 'last_admin' | null]>([
    ['the only admin is removed (by themselves or by SCIM)', 'admin', remove, 1, 'last_admin'],
    ['the only admin is demoted to member (by themselves or by the groups claim)', 'admin', toMember, 1, 'last_admin'],
    ['one of two admins is removed', 'admin', remove, 2, null],
    ['one of two admins is demoted', 'admin', toMember, 2, null],
    ['an admin stays admin', 'admin', toAdmin, 1, null],
    ['a member is removed while the organisation has one admin', 'member', remove, 1, null],
    ['a member is promoted to admin', 'member', toAdmin, 1, null],
    ['a member stays member', 'member', toMember, 1, null],
  ])('%s', (_case, current, change, admins, expected) => {
    const refusal = lastAdminRefusal(current, change, admins);
    expect(refusal?.code ?? null).toBe(expected);
    if (refusal) expect(refusal).toBeInstanceOf(LastAdminError);
  });

  it('refuses with a conflict that says what to do first', () => {
    const refusal = lastAdminRefusal('admin', remove, 1)!;
    expect(refusal.kind).toBe('conflict');
    expect(refusal.message).toMatch(/promote another member first/);
  });
});

describe('handOverTarget: to whom a leaving or demoted person’s rk_ keys pass', () => {
  const leaving = 'user-leaving';
  const admin = 'user-admin';

  it.each<[string, string | null, boolean | undefined, string | null | 'refused']>([
    ['no handOver: nobody (the keys are revoked)', admin, undefined, null],
    ['handOver false: nobody', admin, false, null],
    ['handOver by another admin: that admin', admin, true, admin],
    ['handOver on oneself: refused', leaving, true, 'refused'],
    ['handOver with no person acting (an rk_ key, the system): refused', null, true, 'refused'],
    ['no handOver and no person acting: nobody', null, undefined, null],
  ])('%s', (_case, acting, handOver, expected) => {
    if (expected === 'refused') {
      expect(() => handOverTarget(leaving, acting, handOver)).toThrow(HandOverToSelfError);
    } else {
      expect(handOverTarget(leaving, acting, handOver)).toBe(expected);
    }
  });
});
