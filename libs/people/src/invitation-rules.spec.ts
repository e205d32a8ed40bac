import { invitationStatus, type InvitationStatus } from '@app/tenancy';
import { acceptanceRefusal } from './invitation-rules';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const HOUR = 3600_000;
const at = (offset: number) => new Date(NOW + offset);

describe('invitationStatus: whether a link still works (only pending does)', () => {
  it.each<[string, { acceptedAt: Date | null; withdrawnAt: Date | null; expiresAt: Date }, InvitationStatus]>([
    ['open, expires in an hour', { acceptedAt: null, withdrawnAt: null, expiresAt: at(HOUR) }, 'pending'],
    ['expired a moment ago', { acceptedAt: null, withdrawnAt: null, expiresAt: at(-1) }, 'expired'],
    ['expiring at this very instant', { acceptedAt: null, withdrawnAt: null, expiresAt: at(0) }, 'expired'],
    ['withdrawn before it expired', { acceptedAt: null, withdrawnAt: at(-HOUR), expiresAt: at(HOUR) }, 'withdrawn'],
    ['withdrawn, then expired: still withdrawn', { acceptedAt: null, withdrawnAt: at(-2 * HOUR), expiresAt: at(-HOUR) }, 'withdrawn'],
    ['accepted, then expired: still accepted', { acceptedAt: at(-2 * HOUR), withdrawnAt: null, expiresAt: at(-HOUR) }, 'accepted'],
    ['accepted while open', { acceptedAt: at(-HOUR), withdrawnAt: null, expiresAt: at(HOUR) }, 'accepted'],
  ])('%s', (_case, invitation, expected) => {
    expect(invitationStatus(invitation, NOW)).toBe(expected);
  });
});

describe('acceptanceRefusal: who joins with a link they claimed', () => {
  it.each<[string, string, boolean, string | undefined, string | null]>([
    ['REST: any signed-in person, whatever their email (the link decides)', 'grace@example.com', true, undefined, null],
    ['REST: already a member', 'grace@example.com', false, undefined, 'already_member'],
    ['page: the account has the invited email', 'grace@example.com', true, 'grace@example.com', null],
    ['page: the same email in another case and with spaces', 'grace@example.com', true, '  Grace@Example.COM ', null],
    ['page: another email', 'grace@example.com', true, 'ada@example.com', 'invitation_for_another_email'],
    ['page: another email and already a member (the email is told first)', 'grace@example.com', false, 'ada@example.com', 'invitation_for_another_email'],
    ['page: the invited email, already a member', 'grace@example.com', false, 'grace@example.com', 'already_member'],
    ['page: an address of the same domain is another email', 'grace@example.com', true, 'grace.hopper@example.com', 'invitation_for_another_email'],
  ])('%s', (_case, invitedEmail, joined, onlyForEmail, expected) => {
    expect(acceptanceRefusal(invitedEmail, joined, onlyForEmail)?.code ?? null).toBe(expected);
  });

  it('refuses another email as forbidden and a second membership as a conflict', () => {
    expect(acceptanceRefusal('grace@example.com', true, 'ada@example.com')?.kind).toBe('forbidden');
    expect(acceptanceRefusal('grace@example.com', false)?.kind).toBe('conflict');
  });
});
