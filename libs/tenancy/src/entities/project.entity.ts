import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A project belongs to one organisation; every agent token is bound to exactly one project. */
@Entity('projects')
export class Project {
  @PrimaryGeneratedColumn('uuid')
  id: string;

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
