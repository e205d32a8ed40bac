import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, AuditService, RequestOrigin } from '@app/audit';
import { DomainError } from '@app/common';
import { AppConfig } from '@app/config';
import { hashPassword, PasswordResetDirectory, UserDirectory } from '@app/tenancy';
import { generateToken, hashToken, isWellFormedToken, TOKEN_PREFIXES } from '@app/credential-store';

/** How long a reset link works. */
export const RESET_LINK_TTL_MS = 60 * 60 * 1000;

export class InvalidResetLinkError extends DomainError {
  constructor() {
    super('invalid_reset_link', 'This password-reset link is unknown, already used or expired; ask for a new one', 'not_found');
  }
}

/**
 * The person also belongs to an organisation the acting admin does not administer: resetting
 * their password would reach into it, so only the operator's command line may.
 */
export class ResetNeedsOperatorError extends DomainError {
  constructor() {
    super(
      'reset_needs_operator',
      "This person also belongs to an organisation you do not administer, so you cannot reset their password; the operator can, with the command line's reset-link command",
      'forbidden',
    );
  }
}

export interface IssuedResetLink {
  /** The page where the person sets a new password; carries the secret, shown once. */
  link: string;
  /** The secret alone, for `POST /api/auth/password-reset`. */
  token: string;
  expiresAt: string;
}

/**
 * One-time password-reset links, for a deployment without mail: an admin (or the command line)
 * issues one and passes it on. The secret (`dgp_…`) is shown once and stored as its SHA-256
 * digest; a link works once, for an hour, and using it sets the password and ends every session
 * the person had (their `sessions` rows), in one transaction with its audit event.
 */
@Injectable()
export class PasswordResetService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly resets: PasswordResetDirectory,
    private readonly users: UserDirectory,
  ) {}

  /**
   * A link for `userId`, asked for by an admin of `organizationId`, or by the command line
   * (`null`: any account). An admin may reset only a person whose every organisation they
   * administer; the link then works only while that stays so and the person is still a member
   * of `organizationId` (checked when it is used).
   */
  async issue(organizationId: string | null, userId: string, actor: AuditActor): Promise<IssuedResetLink> {
    const token = generateToken(TOKEN_PREFIXES.passwordReset);
    const issuer = organizationId === null ? null : actor.actorType === 'user' && actor.actorId ? { organizationId, userId: actor.actorId } : undefined;
    if (issuer === undefined) throw new ResetNeedsOperatorError();
    return this.dataSource.transaction(async (em) => {
      if (issuer && !(await this.resets.mayIssue(issuer.userId, userId, em))) throw new ResetNeedsOperatorError();
      const link = await this.resets.create(userId, hashToken(token), new Date(Date.now() + RESET_LINK_TTL_MS), em, issuer);
      await this.audit.record(em, {
        organizationId,
        ...actor,
        action: 'password_reset.issued',
        targetType: 'user',
        targetId: userId,
        metadata: { resetLinkId: link.id, expiresAt: link.expiresAt.toISOString() },
      });
      return { link: this.linkFor(token), token, expiresAt: link.expiresAt.toISOString() };
    });
  }

  /** Whether a presented secret is a link that still works (the reset page asks before showing its form). */
  async isUsable(token: string): Promise<boolean> {
    return isWellFormedToken(token, TOKEN_PREFIXES.passwordReset) && this.resets.isUsable(hashToken(token));
  }

  /**
   * Sets the new password and ends every session of the person; the person's id. The link is
   * looked up before the new password is hashed, so made-up links cost no Argon2id work.
   */
  async use(token: string, newPassword: string, origin?: RequestOrigin): Promise<string> {
    if (!(await this.isUsable(token))) throw new InvalidResetLinkError();
    const passwordHash = await hashPassword(newPassword);
    return this.dataSource.transaction(async (em) => {
      const used = await this.resets.consume(hashToken(token), em);
      if (!used) throw new InvalidResetLinkError();
      await this.users.setPassword(used.userId, passwordHash, em);
      await this.audit.record(em, {
        organizationId: null,
        actorType: 'user',
        actorId: used.userId,
        action: 'password_reset.used',
        targetType: 'user',
        targetId: used.userId,
        metadata: { resetLinkId: used.id },
        origin,
      });
      return used.userId;
    });
  }

  private linkFor(token: string): string {
    return `${this.config.baseUrl}/reset-password?token=${token}`;
  }
}
