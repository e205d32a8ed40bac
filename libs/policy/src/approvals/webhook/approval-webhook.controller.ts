import { Body, Controller, Delete, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { OrganizationRoute, RequestActor, RequireRecentSignIn, RestAuth } from '@app/credentials';
import { ApprovalWebhookService } from './approval-webhook.service';

export class ApprovalWebhookDto {
  @ApiProperty({ example: 'https://hooks.example.com/approvals', description: 'https (http only to loopback under OUTBOUND_ALLOW_LOOPBACK)' })
  @IsString({ message: 'url must be a string' })
  @MaxLength(2048, { message: 'url must be at most 2048 characters' })
  url: string;
}

export class SavedApprovalWebhookDto {
  @ApiProperty() url: string;
  @ApiProperty({ description: 'The Standard Webhooks signing secret (whsec_…), shown only in this answer' }) signingSecret: string;
}

/** Where approvers are told of new approvals (an admin's session; changes need a recent sign-in; docs/policy.md). */
@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/approval-webhook')
@OrganizationRoute('orgId')
export class ApprovalWebhookController {
  constructor(private readonly webhooks: ApprovalWebhookService) {}

  @Put()
  @RestAuth({ sessionOnly: true })
  @RequireRecentSignIn()
  @ApiOperation({ summary: 'Set the approval webhook (a new signing secret, shown once); needs a sign-in of the last 15 minutes (admin session only)' })
  @ApiOkResponse({ type: SavedApprovalWebhookDto })
  @ApiErrors(400, 401, 403, 404)
  set(@Param('orgId') orgId: string, @Body() body: ApprovalWebhookDto, @RequestActor() actor: AuditActor): Promise<SavedApprovalWebhookDto> {
    return this.webhooks.set(orgId, body.url, actor);
  }

  @Delete()
  @HttpCode(204)
  @RestAuth({ sessionOnly: true })
  @RequireRecentSignIn()
  @ApiOperation({ summary: 'Remove the approval webhook; needs a sign-in of the last 15 minutes (admin session only)' })
  @ApiNoContentResponse()
  @ApiErrors(401, 403, 404)
  async remove(@Param('orgId') orgId: string, @RequestActor() actor: AuditActor): Promise<void> {
    await this.webhooks.remove(orgId, actor);
  }
}
