import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { AgentTokenService } from '../agent-token.service';
import { ApiKeyResolver } from '../api-key-resolver.service';
import type { AgentPrincipal, ApiKeyPrincipal } from '../principal';
import type { SessionPrincipal } from '@app/people';
import { SessionTokenService } from '@app/people';
import type { CredentialForm } from '@app/credential-store';

/** The passport strategy that serves each REST credential form (a `scim_` token opens `/scim/v2` only). */
export const STRATEGY_FOR_FORM: Record<Exclude<CredentialForm, 'unrecognised' | 'scim_token'>, string> = {
  agent_token: 'agent-token',
  api_key: 'api-key',
  session_jwt: 'session-jwt',
};

@Injectable()
export class AgentTokenStrategy extends PassportStrategy(BearerStrategy, 'agent-token') {
  constructor(private readonly tokens: AgentTokenService) {
    super();
  }

  async validate(token: string): Promise<AgentPrincipal | false> {
    return (await this.tokens.resolve(token)) ?? false;
  }
}

@Injectable()
export class ApiKeyStrategy extends PassportStrategy(BearerStrategy, 'api-key') {
  constructor(private readonly keys: ApiKeyResolver) {
    super();
  }

  async validate(token: string): Promise<ApiKeyPrincipal | false> {
    return (await this.keys.resolve(token)) ?? false;
  }
}

@Injectable()
export class SessionJwtStrategy extends PassportStrategy(BearerStrategy, 'session-jwt') {
  constructor(private readonly sessions: SessionTokenService) {
    super();
  }

  async validate(token: string): Promise<SessionPrincipal | false> {
    return (await this.sessions.resolve(token)) ?? false;
  }
}
