import { Injectable } from '@nestjs/common';
import type { RequestOrigin } from '@app/audit';
import { AppConfig } from '@app/config';
import { AccountsService, CreatedAccount, NewAccount } from './accounts.service';
import { SignupAndResetLimits } from './signup-and-reset-limits.service';
import { SignupDisabledError } from './account.errors';
import { SessionTokenService } from './session-token.service';

export interface SignedUp {
  account: CreatedAccount;
  session: Awaited<ReturnType<SessionTokenService['issue']>>;
}

/**
 * Sign-up, for the REST route and the HTML page alike: refused while sign-up is off (unless
 * with an invitation), counted against the sign-up limits of the caller's IP, then the account
 * (`AccountsService.createAccount`) and its first session.
 */
@Injectable()
export class SignupService {
  constructor(
    private readonly config: AppConfig,
    private readonly accounts: AccountsService,
    private readonly sessions: SessionTokenService,
    private readonly limits: SignupAndResetLimits,
  ) {}

  async signUp(input: NewAccount, origin: RequestOrigin): Promise<SignedUp> {
    if (!this.config.signupEnabled && !input.invitation) throw new SignupDisabledError();
    await this.limits.countSignup(origin.ip ?? null);
    const account = await this.accounts.createAccount(input, 'signup', origin);
    return { account, session: await this.sessions.issue(account.user.id, origin) };
  }
}
