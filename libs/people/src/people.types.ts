import type { InvitationStatus, MembershipRole } from '@app/tenancy';

/**
 * What the people services answer, without any transport: the REST answers of `organizations`
 * (its DTO classes implement these) and the dashboard's pages show them as they are.
 */

/** A member of an organisation. */
export interface Member {
  userId: string;
  email: string;
  name: string;
  role: MembershipRole;
  /** ISO 8601. */
  joinedAt: string;
}

/** A page of members, in the order they joined (keyset: `nextCursor`, null on the last page). */
export interface MemberList {
  items: Member[];
  nextCursor: string | null;
}

/** A link to the route that acts on a held credential. */
export interface ActionLink {
  method: 'GET' | 'POST';
  path: string;
}

/**
 * What a person leaving or losing the admin role could hold: their `rk_` keys (ended, or handed
 * over), the SCIM tokens they made, and the service keys they created with the tokens derived
 * from them (kept working: machines use them; rotate them).
 */
export interface Offboarding {
  apiKeys: { outcome: 'revoked' | 'handed_over'; count: number; items: { id: string; name: string }[] };
  scimTokensEnded: { id: string; name: string }[];
  scimTokensHandedOver: { id: string; name: string }[];
  serviceKeys: { id: string; name: string; tokens: ActionLink; revoke: ActionLink }[];
  derivedTokens: { id: string; serviceKeyId: string; projectId: string; rotate: ActionLink }[];
}

/** A member whose role changed; `offboarding` when an admin was demoted. */
export type ChangedMember = Member & { offboarding?: Offboarding };

/** A removal: the person's agent tokens in the organisation it revoked, and the offboarding. */
export interface RemovedMember {
  userId: string;
  organizationId: string;
  revokedTokens: number;
  offboarding: Offboarding;
}

/** An invitation of an email to an organisation, with a role. */
export interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  role: MembershipRole;
  status: InvitationStatus;
  invitedBy: string | null;
  /** ISO 8601. */
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
}

/** A new invitation, with its link and secret (shown only in this answer). */
export interface CreatedInvitation extends Invitation {
  link: string;
  token: string;
}

/** A page of invitations, newest first. */
export interface InvitationList {
  items: Invitation[];
  nextCursor: string | null;
}

/** An accepted invitation: the organisation joined and, when the accepting session was renewed, the new session. */
export interface AcceptedInvitation {
  organizationId: string;
  organizationName: string;
  role: MembershipRole;
  accessToken?: string;
  tokenType?: 'Bearer';
  expiresIn?: number;
}
