import { normalizeEmail } from '@app/tenancy';
import { AlreadyMemberError, InvitationForAnotherEmailError } from './people.errors';

/**
 * Why a signed-in person who claimed a working link (pending, not withdrawn, not expired, their
 * inviter still an admin, the person not deprovisioned there by SCIM: the claim's own atomic
 * conditions) does not join with it, or null when they join:
 * - with `onlyForEmail` (the dashboard's invitation page, the account's email), an invitation of
 *   another email is refused (`InvitationForAnotherEmailError`, 403); emails compare as stored
 *   (trimmed, lower case). The REST acceptance leaves it out: the link decides there;
 * - a person who already is a member (`joined` false) gets `AlreadyMemberError` (409).
 * Either refusal rolls the claim back, so the link stays usable.
 */
export function acceptanceRefusal(invitedEmail: string, joined: boolean, onlyForEmail?: string): InvitationForAnotherEmailError | AlreadyMemberError | null {
  if (onlyForEmail !== undefined && normalizeEmail(invitedEmail) !== normalizeEmail(onlyForEmail)) return new InvitationForAnotherEmailError();
  return joined ? null : new AlreadyMemberError();
}
