import { Injectable } from '@nestjs/common';
import { OAuthGrantsRepository } from './repositories/oauth-grants.repository';

/**
 * The OAuth grants (`oauth_grants`) as the authorisation server uses them: create on consent (or
 * on an ID-JAG trade, reusing the live one),
 * find (and lock) for issuing, the connected-client lists, the client policy's counts and the
 * cleanup's questions. Revocations go through `CredentialRevoker`.
 */
@Injectable()
export class OAuthGrantStore {
  constructor(private readonly grants: OAuthGrantsRepository) {}

  create(...args: Parameters<OAuthGrantsRepository['create']>): ReturnType<OAuthGrantsRepository['create']> {
    return this.grants.create(...args);
  }

  upsertIdJagGrant(...args: Parameters<OAuthGrantsRepository['upsertIdJagGrant']>): ReturnType<OAuthGrantsRepository['upsertIdJagGrant']> {
    return this.grants.upsertIdJagGrant(...args);
  }

  hasLiveGrant(...args: Parameters<OAuthGrantsRepository['hasLiveGrant']>): ReturnType<OAuthGrantsRepository['hasLiveGrant']> {
    return this.grants.hasLiveGrant(...args);
  }

  existsForUserAndClient(...args: Parameters<OAuthGrantsRepository['existsForUserAndClient']>): ReturnType<OAuthGrantsRepository['existsForUserAndClient']> {
    return this.grants.existsForUserAndClient(...args);
  }

  isLive(...args: Parameters<OAuthGrantsRepository['isLive']>): ReturnType<OAuthGrantsRepository['isLive']> {
    return this.grants.isLive(...args);
  }

  findOwned(...args: Parameters<OAuthGrantsRepository['findOwned']>): ReturnType<OAuthGrantsRepository['findOwned']> {
    return this.grants.findOwned(...args);
  }

  findInOrganization(...args: Parameters<OAuthGrantsRepository['findInOrganization']>): ReturnType<OAuthGrantsRepository['findInOrganization']> {
    return this.grants.findInOrganization(...args);
  }

  findForUpdate(...args: Parameters<OAuthGrantsRepository['findForUpdate']>): ReturnType<OAuthGrantsRepository['findForUpdate']> {
    return this.grants.findForUpdate(...args);
  }

  listLiveForUser(...args: Parameters<OAuthGrantsRepository['listLiveForUser']>): ReturnType<OAuthGrantsRepository['listLiveForUser']> {
    return this.grants.listLiveForUser(...args);
  }

  pageLiveForOrganization(...args: Parameters<OAuthGrantsRepository['pageLiveForOrganization']>): ReturnType<OAuthGrantsRepository['pageLiveForOrganization']> {
    return this.grants.pageLiveForOrganization(...args);
  }

  liveClientIds(...args: Parameters<OAuthGrantsRepository['liveClientIds']>): ReturnType<OAuthGrantsRepository['liveClientIds']> {
    return this.grants.liveClientIds(...args);
  }

  liveCountsByClient(...args: Parameters<OAuthGrantsRepository['liveCountsByClient']>): ReturnType<OAuthGrantsRepository['liveCountsByClient']> {
    return this.grants.liveCountsByClient(...args);
  }

  revokedLongerAgoThan(...args: Parameters<OAuthGrantsRepository['revokedLongerAgoThan']>): ReturnType<OAuthGrantsRepository['revokedLongerAgoThan']> {
    return this.grants.revokedLongerAgoThan(...args);
  }

  clientsWithGrants(...args: Parameters<OAuthGrantsRepository['clientsWithGrants']>): ReturnType<OAuthGrantsRepository['clientsWithGrants']> {
    return this.grants.clientsWithGrants(...args);
  }
}
