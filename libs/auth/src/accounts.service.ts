import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { hashPassword } from '@app/users';
import { EmailTakenError } from './auth.errors';
import { normalizeEmail } from './email';

export interface NewAccount {
  email: string;
  password: string;
  name: string;
  organizationName: string;
}

export interface CreatedAccount {
  user: { id: string; email: string; name: string };
  organization: { id: string; name: string };
}

/**
 * Creates a person together with their first organisation, where they are the administrator:
 * what signup does, and what the command line does on a deployment where signup is off.
 * One transaction: the user, the organisation, the membership and the audit event.
 */
@Injectable()
export class AccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async createAccount(input: NewAccount, via: 'signup' | 'cli', origin?: RequestOrigin): Promise<CreatedAccount> {
    const email = normalizeEmail(input.email);
    const taken: unknown[] = await this.dataSource.query('SELECT 1 FROM users WHERE lower(email) = $1', [email]);
    if (taken.length) throw new EmailTakenError();
    const passwordHash = await hashPassword(input.password);
    return this.dataSource.transaction(async (em) => {
      // ON CONFLICT on the lower(email) index: a parallel signup with the same email loses here
      // without a failed statement (nothing else has been written yet in this transaction).
      const [user] = (await em.query(
        `INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3)
         ON CONFLICT ((lower(email))) DO NOTHING RETURNING id, email, name`,
        [email, input.name.trim(), passwordHash],
      )) as CreatedAccount['user'][];
      if (!user) throw new EmailTakenError();
      const [organization] = (await em.query('INSERT INTO organizations (name) VALUES ($1) RETURNING id, name', [
        input.organizationName.trim(),
      ])) as CreatedAccount['organization'][];
      await em.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'admin')`, [
        organization!.id,
        user.id,
      ]);
      await this.audit.record(em, {
        organizationId: organization!.id,
        actorType: via === 'cli' ? 'cli' : 'user',
        actorId: via === 'cli' ? null : user.id,
        action: 'organization.created',
        targetType: 'organization',
        targetId: organization!.id,
        metadata: { name: organization!.name, via, adminUserId: user.id },
        origin,
      });
      return { user, organization: organization! };
    });
  }
}
