import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MembershipRole } from '@app/tenancy';

/** One group of the IdP's groups claim and the role its members get. */
export interface RoleMapping {
  group: string;
  role: MembershipRole;
}

/** Which project an AI client's ID-JAG trades open (null: not chosen yet, the trade is refused). */
export interface IdJagClient {
  clientId: string;
  projectId: string | null;
}

/**
 * An organisation's OpenID Connect identity provider (at most one per organisation). The client
 * secret is write-only: never selected unless asked for by name, never returned or logged.
 */
@Index('identity_providers_issuer_idx', ['issuer'])
@Entity('identity_providers')
export class IdentityProviderRecord {
  @ForeignKey('Organization', { name: 'identity_providers_organization_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  organizationId: string;

  @Column('text')
  issuer: string;

  /** The IdP's `tenant` claim, for an issuer shared by many tenants (ID-JAG). */
  @Column('text', { nullable: true })
  tenant: string | null;

  @Column('text')
  clientId: string;

  @Column('text', { select: false })
  clientSecret: string;

  @Column('text')
  defaultRole: 'member';

  @Column('text', { nullable: true })
  groupsClaim: string | null;

  /** Extra OpenID scopes asked for at sign-in, after `openid email profile` (e.g. `groups`). */
  @Column('jsonb', { default: [] })
  scopes: string[];

  @Column('jsonb', { default: [] })
  roleMappings: RoleMapping[];

  @Column('boolean', { default: false })
  requireSso: boolean;

  @Column('boolean', { default: false })
  acceptIdJag: boolean;

  @Column('jsonb', { default: [] })
  idJagClients: IdJagClient[];

  /** When an admin of the organisation first signed in through this IdP (ID-JAG needs it). */
  @Column('timestamptz', { nullable: true })
  adminSignedInAt: Date | null;

  /** When the IdP last sent an ID token that passed the checks (any person's sign-in). */
  @Column('timestamptz', { nullable: true })
  lastIdTokenAt: Date | null;

  /** The names of that ID token's claims (never their values): whether the groups claim arrives. */
  @Column('jsonb', { nullable: true })
  lastIdTokenClaims: string[] | null;

  /**
   * Connected before per-IdP redirect URIs: the shared `/auth/sso/callback` is still accepted for
   * this IdP (with `iss` required where the issuer advertises it) until an admin clears the flag.
   */
  @Column('boolean', { default: false })
  legacyRedirectUri: boolean;

  /** What the issuer's discovery document said when the settings were saved (shown, not trusted). */
  @Column('jsonb', { nullable: true })
  discovery: { [key: string]: string | number | boolean | string[] | null } | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
