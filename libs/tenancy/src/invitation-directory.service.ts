import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError, KEYSET_SQL, KeysetPosition } from '@app/common';
import { isUuid } from '@app/database';
import { normalizeEmail } from './email';
import { Invitation } from './entities/invitation.entity';
import { MembershipDirectory } from './membership-directory.service';
import type { MembershipRole } from './roles';

export const INVITATION_STATUSES = ['pending', 'accepted', 'withdrawn', 'expired'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/**
 * Where an invitation stands: accepted (used once), else withdrawn (by an admin, or with its
 * inviter's right to invite), else expired (at `expiresAt`), else pending, the only status whose
 * link works. The same rule as the SQL that claims a link (`OPEN`).
 */
export function invitationStatus(i: { acceptedAt: Date | null; withdrawnAt: Date | null; expiresAt: Date }, now: number = Date.now()): InvitationStatus {
  if (i.acceptedAt) return 'accepted';
  if (i.withdrawnAt) return 'withdrawn';
  return i.expiresAt.getTime() <= now ? 'expired' : 'pending';
}

/** An invitation as admins see it (never its secret). */
export interface InvitationRecord {
  id: string;
  organizationId: string;
  email: string;
  role: MembershipRole;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  acceptedBy: string | null;
  withdrawnAt: Date | null;
  status: InvitationStatus;
}

export interface NewInvitation {
  organizationId: string;
  email: string;
  role: MembershipRole;
  tokenHash: string;
  invitedBy: string | null;
  expiresAt: Date;
}

const OPEN = 'accepted_at IS NULL AND withdrawn_at IS NULL AND expires_at > now()';

/**
 * The person who created the invitation may still invite (is an admin of its organisation
 * now); an invitation made without a person (command line, provisioning) has no inviter to check.
 */
const INVITER_MAY_STILL_INVITE = `(invited_by IS NULL OR EXISTS (
  SELECT 1 FROM memberships m WHERE m.organization_id = invitations.organization_id AND m.user_id = invitations.invited_by AND m.role = 'admin'))`;

/** Each status as a condition on the `i` alias (what `toRecord` computes). */
const STATUS_CONDITION: Record<InvitationStatus, string> = {
  pending: 'i.accepted_at IS NULL AND i.withdrawn_at IS NULL AND i.expires_at > now()',
  accepted: 'i.accepted_at IS NOT NULL',
  withdrawn: 'i.accepted_at IS NULL AND i.withdrawn_at IS NOT NULL',
  expired: 'i.accepted_at IS NULL AND i.withdrawn_at IS NULL AND i.expires_at <= now()',
};

/**
 * The `invitations` table. A link is looked up by the SHA-256 digest of its secret; claiming it
 * is one conditional update (still open → accepted), so two people presenting the same link at
 * once cannot both join.
 */
@Injectable()
export class InvitationDirectory {
  constructor(
    private readonly dataSource: DataSource,
    private readonly memberships: MembershipDirectory,
  ) {}

  private repo(em?: EntityManager) {
    return (em ?? this.dataSource.manager).getRepository(Invitation);
  }

  async create(input: NewInvitation, em?: EntityManager): Promise<InvitationRecord> {
    const saved = await this.repo(em).save(this.repo(em).create({ ...input, email: normalizeEmail(input.email) }));
    return toRecord(saved);
  }

  /**
   * A page of the organisation's invitations, newest first (`created_at`, then id), after a
   * position, optionally only those with one status; each with its position.
   */
  async page(
    organizationId: string,
    limit: number,
    options: { after?: KeysetPosition; status?: InvitationStatus } = {},
  ): Promise<(InvitationRecord & { position: KeysetPosition })[]> {
    const query = this.repo()
      .createQueryBuilder('i')
      .addSelect(KEYSET_SQL.createdUs('i'), 'us')
      .where('i.organization_id = :organizationId', { organizationId });
    if (options.after) query.andWhere(KEYSET_SQL.after('i', ':us', ':id'), { us: options.after.us, id: options.after.id });
    if (options.status) query.andWhere(STATUS_CONDITION[options.status]);
    const { entities, raw } = await query.orderBy('i.created_at', 'DESC').addOrderBy('i.id', 'DESC').limit(limit).getRawAndEntities();
    const positions = (raw as { us: string }[]).map((r) => r.us);
    return entities.map((entity, n) => ({ ...toRecord(entity), position: { us: positions[n]!, id: entity.id } }));
  }

  /** The organisation's still-open invitation with this id (what the withdrawal asks to confirm), or null. */
  async findPending(organizationId: string, invitationId: string): Promise<InvitationRecord | null> {
    if (!isUuid(invitationId)) return null;
    const entity = await this.repo()
      .createQueryBuilder('i')
      .where(`i.id = :invitationId AND i.organization_id = :organizationId AND ${STATUS_CONDITION.pending}`, { invitationId, organizationId })
      .getOne();
    return entity ? toRecord(entity) : null;
  }

  /** Who accepted the organisation's invitation with this id (null: not accepted, or no such invitation), in `em`. */
  async acceptedBy(organizationId: string, invitationId: string, em?: EntityManager): Promise<string | null> {
    if (!isUuid(invitationId)) return null;
    const row = await this.repo(em).findOne({ where: { id: invitationId, organizationId }, select: { id: true, acceptedBy: true } });
    return row?.acceptedBy ?? null;
  }

  /** The still-open invitation behind a link's digest whose inviter may still invite (what the sign-up page shows), or null. */
  async findOpenByHash(tokenHash: string): Promise<(InvitationRecord & { organizationName: string }) | null> {
    const row = await this.repo()
      .createQueryBuilder('i')
      .innerJoin('Organization', 'o', 'o.id = i.organizationId')
      .addSelect('o.name', 'organization_name')
      .where('i.tokenHash = :tokenHash AND i.acceptedAt IS NULL AND i.withdrawnAt IS NULL AND i.expiresAt > now()', { tokenHash })
      .andWhere(
        `(i.invited_by IS NULL OR EXISTS (SELECT 1 FROM memberships m WHERE m.organization_id = i.organization_id AND m.user_id = i.invited_by AND m.role = 'admin'))`,
      )
      .getRawAndEntities();
    const entity = row.entities[0];
    return entity ? { ...toRecord(entity), organizationName: (row.raw[0] as { organization_name: string }).organization_name } : null;
  }

  /**
   * Marks an open invitation withdrawn; the record, or null when the organisation has no such
   * open invitation.
   */
  async withdraw(organizationId: string, invitationId: string, em?: EntityManager): Promise<InvitationRecord | null> {
    if (!isUuid(invitationId)) return null;
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set({ withdrawnAt: () => 'now()' })
      .where(`id = :invitationId AND organization_id = :organizationId AND ${OPEN}`, { invitationId, organizationId })
      .returning('*')
      .updateEntity(false)
      .execute();
    const [raw] = result.raw as RawInvitation[];
    return raw ? fromRaw(raw) : null;
  }

  /**
   * A person was removed from the organisation or lost the admin role: the open invitations
   * they created there end (marked withdrawn), in the caller's transaction. The ended ones.
   */
  async withdrawCreatedBy(organizationId: string, userId: string, em: EntityManager): Promise<InvitationRecord[]> {
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set({ withdrawnAt: () => 'now()' })
      .where(`organization_id = :organizationId AND invited_by = :userId AND ${OPEN}`, { organizationId, userId })
      .returning('*')
      .updateEntity(false)
      .execute();
    return (result.raw as RawInvitation[]).map(fromRaw);
  }

  /** Withdraws every open invitation of the organisation to any of these emails (compared in lower case), in `em`'s transaction. */
  async withdrawOpenTo(organizationId: string, emails: readonly string[], em: EntityManager): Promise<InvitationRecord[]> {
    if (emails.length === 0) return [];
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set({ withdrawnAt: () => 'now()' })
      .where(`organization_id = :organizationId AND lower(email) IN (:...emails) AND ${OPEN}`, { organizationId, emails: [...new Set(emails.map((e) => e.toLowerCase()))] })
      .returning('*')
      .updateEntity(false)
      .execute();
    return (result.raw as RawInvitation[]).map(fromRaw);
  }

  /**
   * Uses the invitation behind the link for `userId`: one conditional update, so a link is used
   * once. Null when the link is unknown, used, withdrawn or expired, or when its inviter may no
   * longer invite (is not an admin of the organisation any more, whatever path changed that).
   */
  async claim(tokenHash: string, userId: string, em: EntityManager): Promise<InvitationRecord | null> {
    const result = await this.repo(em)
      .createQueryBuilder()
      .update()
      .set({ acceptedAt: () => 'now()', acceptedBy: userId })
      .where(`token_hash = :tokenHash AND ${OPEN} AND ${INVITER_MAY_STILL_INVITE}`, { tokenHash })
      .returning('*')
      .updateEntity(false)
      .execute();
    const [raw] = result.raw as RawInvitation[];
    return raw ? fromRaw(raw) : null;
  }

  /**
   * Uses the link and makes `userId` a member with the invitation's role, in `em`'s transaction.
   * `joined` is false when they already were a member (the caller refuses, rolling the claim back).
   */
  async accept(tokenHash: string, userId: string, em: EntityManager): Promise<{ invitation: InvitationRecord; joined: boolean } | null> {
    const invitation = await this.claim(tokenHash, userId, em);
    if (!invitation) return null;
    // Joining by invitation lifts an admin's earlier removal (SPEC §10), as every way of joining does.
    const joined = await this.memberships.add(invitation.organizationId, userId, invitation.role, em);
    return { invitation, joined };
  }
}

interface RawInvitation {
  id: string;
  organization_id: string;
  email: string;
  role: MembershipRole;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  withdrawn_at: Date | null;
}

function fromRaw(r: RawInvitation): InvitationRecord {
  return toRecord({
    id: r.id,
    organizationId: r.organization_id,
    email: r.email,
    role: r.role,
    invitedBy: r.invited_by,
    createdAt: new Date(r.created_at),
    expiresAt: new Date(r.expires_at),
    acceptedAt: r.accepted_at ? new Date(r.accepted_at) : null,
    acceptedBy: r.accepted_by,
    withdrawnAt: r.withdrawn_at ? new Date(r.withdrawn_at) : null,
  } as Invitation);
}

function toRecord(i: Invitation): InvitationRecord {
  const status = invitationStatus(i);
  return {
    id: i.id,
    organizationId: i.organizationId,
    email: i.email,
    role: i.role,
    invitedBy: i.invitedBy,
    createdAt: i.createdAt,
    expiresAt: i.expiresAt,
    acceptedAt: i.acceptedAt,
    acceptedBy: i.acceptedBy,
    withdrawnAt: i.withdrawnAt,
    status,
  };
}

/** The link is unknown, used, withdrawn or expired (one answer for all, so it tells nothing more). */
export class InvalidInvitationError extends DomainError {
  constructor() {
    super('invalid_invitation', 'This invitation link is unknown, already used, withdrawn or expired; ask for a new one', 'not_found');
  }
}
