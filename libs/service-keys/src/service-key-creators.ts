import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeyStore, ServiceKey } from '@app/credential-store';
import { UserDirectory } from '@app/tenancy';
import type { ServiceKeyCreatorDto } from './dto/service-key.dto';

/**
 * Who created service keys, by name. A key records only its creator's id (`created_by`, the
 * audit actor's id): a person's session or an `rk_` key of the organisation. Each distinct
 * creator is looked up once per call.
 */
@Injectable()
export class ServiceKeyCreators {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UserDirectory,
    private readonly apiKeys: ApiKeyStore,
  ) {}

  async of(organizationId: string, keys: readonly ServiceKey[]): Promise<Map<string, ServiceKeyCreatorDto>> {
    const found = new Map<string, ServiceKeyCreatorDto>();
    const ids = [...new Set(keys.map((k) => k.createdBy).filter((id): id is string => id !== null))];
    for (const id of ids) {
      const user = await this.users.findById(id);
      if (user) {
        found.set(id, { type: 'user', id, name: user.name });
        continue;
      }
      const apiKey = await this.apiKeys.find(this.dataSource.manager, organizationId, id);
      if (apiKey) found.set(id, { type: 'api_key', id, name: apiKey.name });
    }
    return found;
  }
}
