import { normalizeEmail } from './email';
import { roleSatisfies } from './roles';

describe('roles', () => {
  it('lets an admin do what a member may, and not the reverse', () => {
    expect(roleSatisfies('admin', 'admin')).toBe(true);
    expect(roleSatisfies('admin', 'member')).toBe(true);
    expect(roleSatisfies('member', 'member')).toBe(true);
    expect(roleSatisfies('member', 'admin')).toBe(false);
  });
});

describe('email normalisation', () => {
  it('trims and lower-cases', () => {
    expect(normalizeEmail('  Grace.Hopper@Example.COM ')).toBe('grace.hopper@example.com');
  });
});
