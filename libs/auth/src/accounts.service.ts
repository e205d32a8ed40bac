import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService, RequestOrigin } from '@app/audit';
import { hashPassword, OrganizationDirectory, UserDirectory } from '@app/tenancy';
import { EmailTakenError } from './auth.errors';

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
    private readonly users: UserDirectory,
    private readonly organizations: OrganizationDirectory,
  ) {}

  async createAccount(input: NewAccount, via: 'signup' | 'cli', origin?: RequestOrigin): Promise<CreatedAccount> {
    if (await this.users.isEmailTaken(input.email)) throw new EmailTakenError();
    const passwordHash = await hashPassword(input.password);
    return this.dataSource.transaction(async (em) => {
      // A parallel signup with the same email loses here (nothing else has been written yet).
      const user = await this.users.create({ email: input.email, name: input.name, passwordHash }, em);
      if (!user) throw new EmailTakenError();
      const { id, name } = await this.organizations.create(input.organizationName, user.id, em);
      const organization = { id, name };
      await this.audit.record(em, {
        organizationId: organization.id,
        actorType: via === 'cli' ? 'cli' : 'user',
        actorId: via === 'cli' ? null : user.id,
        action: 'organization.created',
        targetType: 'organization',
        targetId: organization.id,
        metadata: { name: organization.name, via, adminUserId: user.id },
        origin,
      });
      return { user, organization };
    });
  }
}
