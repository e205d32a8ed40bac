import { ScimError } from './scim.errors';
import { parseFilter } from './scim-filter';
import { applyPatch, parseUserResource, type ScimUserState } from './scim-user.input';

const ROLE = 'urn:agent-gateway:params:scim:schemas:extension:2.0:User:role';
const current: ScimUserState = { userName: 'kim@corp.example', externalId: null, givenName: 'Kim', familyName: 'Lee', displayName: null, active: true, role: 'member' };

function scimTypeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof ScimError) return error.scimType;
    throw error;
  }
  return 'no error';
}

describe('SCIM PATCH', () => {
  it('takes op names in any case, paths, and value objects without a path', () => {
    expect(applyPatch(current, { Operations: [{ op: 'Replace', path: 'active', value: 'False' }] }).active).toBe(false);
    expect(applyPatch(current, { Operations: [{ op: 'replace', value: { active: false } }] }).active).toBe(false);
    expect(applyPatch(current, { Operations: [{ op: 'add', path: 'Name.GivenName', value: 'Kimberly' }] }).givenName).toBe('Kimberly');
    expect(applyPatch(current, { Operations: [{ op: 'replace', value: { name: { familyName: 'Park' }, [ROLE]: 'admin' } }] })).toMatchObject({ familyName: 'Park', role: 'admin' });
    expect(applyPatch(current, { Operations: [{ op: 'Remove', path: 'name.givenName' }] }).givenName).toBeNull();
    expect(applyPatch(current, { Operations: [{ op: 'Add', path: 'emails[type eq "work"].value', value: 'x@y.example' }] })).toEqual(current);
  });

  it('names what is wrong with the RFC 7644 scimType', () => {
    expect(scimTypeOf(() => applyPatch(current, { Operations: [{ op: 'replace', path: 'shoeSize', value: 44 }] }))).toBe('invalidPath');
    expect(scimTypeOf(() => applyPatch(current, { Operations: [{ op: 'replace', path: 'active', value: 'yes' }] }))).toBe('invalidValue');
    expect(scimTypeOf(() => applyPatch(current, { Operations: [{ op: 'remove' }] }))).toBe('noTarget');
    expect(scimTypeOf(() => applyPatch(current, { Operations: [{ op: 'copy', path: 'active', value: true }] }))).toBe('invalidSyntax');
    expect(scimTypeOf(() => applyPatch(current, { Operations: [{ op: 'remove', path: 'userName' }] }))).toBe('mutability');
    expect(scimTypeOf(() => applyPatch(current, { schemas: ['urn:other'], Operations: [{ op: 'replace', path: 'active', value: true }] }))).toBe('invalidSyntax');
    expect(scimTypeOf(() => applyPatch(current, { Operations: [{ op: 'replace', path: 'displayName', value: 'a\u202eb' }] }))).toBe('invalidValue');
  });
});

describe('SCIM User resource', () => {
  it('lower-cases the userName and requires it to be an email', () => {
    expect(parseUserResource({ userName: ' Kim@Corp.Example ' }).userName).toBe('kim@corp.example');
    expect(scimTypeOf(() => parseUserResource({ userName: 'kim' }))).toBe('invalidValue');
    expect(scimTypeOf(() => parseUserResource({ displayName: 'Kim' }))).toBe('invalidValue');
  });
});

describe('SCIM filter', () => {
  it('takes eq on userName, externalId and id, in any case', () => {
    expect(parseFilter('userName eq "kim@corp.example"')).toEqual({ attribute: 'userName', value: 'kim@corp.example' });
    expect(parseFilter('externalid EQ "00u\\"1"')).toEqual({ attribute: 'externalId', value: '00u"1' });
    expect(parseFilter(undefined)).toBeNull();
  });

  it('refuses the rest with invalidFilter', () => {
    for (const filter of ['userName co "kim"', 'title eq "x"', 'userName eq kim', 'userName eq "a" and active eq true', ['a', 'b']]) {
      expect(scimTypeOf(() => parseFilter(filter))).toBe('invalidFilter');
    }
  });
});
