import { Injectable } from '@nestjs/common';
import { ServiceKeysRepository } from './repositories/service-keys.repository';

/**
 * Service keys (`service_keys`): create, list, find, and their names for the audit list.
 * Their derived tokens are `DerivedTokenStore`'s; revocations go through `CredentialRevoker`.
 */
@Injectable()
export class ServiceKeyStore {
  constructor(private readonly keys: ServiceKeysRepository) {}

  create(...args: Parameters<ServiceKeysRepository['create']>): ReturnType<ServiceKeysRepository['create']> {
    return this.keys.create(...args);
  }

  find(...args: Parameters<ServiceKeysRepository['find']>): ReturnType<ServiceKeysRepository['find']> {
    return this.keys.find(...args);
  }

  findForShare(...args: Parameters<ServiceKeysRepository['findForShare']>): ReturnType<ServiceKeysRepository['findForShare']> {
    return this.keys.findForShare(...args);
  }

  pageForOrganization(...args: Parameters<ServiceKeysRepository['pageForOrganization']>): ReturnType<ServiceKeysRepository['pageForOrganization']> {
    return this.keys.pageForOrganization(...args);
  }

  namesOf(...args: Parameters<ServiceKeysRepository['namesOf']>): ReturnType<ServiceKeysRepository['namesOf']> {
    return this.keys.namesOf(...args);
  }
}
