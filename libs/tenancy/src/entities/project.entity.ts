import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A project belongs to one organisation; every agent token is bound to exactly one project. */
@Index('projects_org_idx', ['organizationId', 'createdAt'], { where: 'deleted_at IS NULL' })
@Entity('projects')
export class Project {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @ForeignKey('Organization', { name: 'projects_organization_id_fkey', onDelete: 'CASCADE' })
  @Column('uuid')
  organizationId: string;

  @Column('text')
  name: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /** Set when the project is deleted; deleted projects are invisible everywhere. */
  @Column({ type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
