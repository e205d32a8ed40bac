import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('users')
export class User {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  email: string;

  @Column('text')
  name: string;

  /** `scrypt$N$r$p$salt$hash`; never serialised. */
  @Column('text', { select: false })
  passwordHash: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  /** Sessions issued before this moment are refused ("sign out everywhere", a used reset link). */
  @Column({ type: 'timestamptz', nullable: true })
  sessionsNotBefore: Date | null;
}
