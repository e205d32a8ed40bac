import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

/**
 * The id of an organisation's redirect URI `{BASE_URL}/auth/sso/callback/<callbackId>` (SPEC §10):
 * made the first time an admin asks for it, before any IdP is connected, and kept for the
 * organisation's life (a disconnect or an issuer change keeps it).
 */
@Index('identity_provider_redirects_callback_id_key', ['callbackId'], { unique: true })
@Entity('identity_provider_redirects')
export class IdentityProviderRedirect {
  @ForeignKey('Organization', { name: 'identity_provider_redirects_organization_id_fkey', onDelete: 'CASCADE' })
  @PrimaryColumn('uuid')
  organizationId: string;

  /** Random, URL-safe (22 characters of base64url). */
  @Column('text')
  callbackId: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
