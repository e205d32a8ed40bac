import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import { ApiErrorDto } from '@app/common';
import { PASSWORD_REAUTHENTICATE_PATH, RecentSignIn, type RecentSignInMethod, SSO_STEP_UP_PATH } from '@app/people';
import type { AuthenticatedRequest } from './credential.guard';

/** Runs after the credential guard: the route's session must have signed in within 15 minutes. */
@Injectable()
export class RecentSignInGuard implements CanActivate {
  constructor(private readonly recent: RecentSignIn) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const orgId = (req.params as Record<string, unknown> | undefined)?.orgId;
    await this.recent.require(req.principal, typeof orgId === 'string' ? orgId : undefined);
    return true;
  }
}

/** The 401 of a route that needs a recent sign-in: the error body, and how to refresh the sign-in. */
export class ReauthenticationRequiredDto extends ApiErrorDto {
  @ApiProperty({ enum: ['password', 'sso'], required: false, description: "How this session signs in again (with code reauthentication_required): its password, or its identity provider's step-up" })
  method?: RecentSignInMethod;

  @ApiProperty({
    required: false,
    example: `${PASSWORD_REAUTHENTICATE_PATH}`,
    description: `Where (a path on this service): POST ${PASSWORD_REAUTHENTICATE_PATH} {password}, or ${SSO_STEP_UP_PATH}?organization=… opened in a browser`,
  })
  reauthenticateUrl?: string;
}

/** The route needs a sign-in of the last 15 minutes (else 401 `reauthentication_required`, documented with how to refresh it). */
export const RequireRecentSignIn = () =>
  applyDecorators(
    UseGuards(RecentSignInGuard),
    ApiResponse({
      status: 401,
      description: 'No credential, or an unknown, expired or revoked one; or code reauthentication_required: a sign-in older than 15 minutes (method and reauthenticateUrl say how to refresh it).',
      type: ReauthenticationRequiredDto,
    }),
  );
