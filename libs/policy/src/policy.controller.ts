import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuditActor } from '@app/audit';
import { ApiErrors } from '@app/common';
import { OrganizationRoute, RequestActor, RequireRecentSignIn, RestAuth } from '@app/credentials';
import { EvaluatePolicyDto, PolicyDto, PolicyEvaluationDto, UpdatePolicyDto } from './policy.dto';
import { PolicyService } from './policy.service';

/** The organisation's policy over agents' calls (an admin's session only; docs/policy.md). */
@ApiTags('organizations')
@ApiBearerAuth()
@Controller('api/organizations/:orgId/policy')
@OrganizationRoute('orgId')
export class PolicyController {
  constructor(private readonly policies: PolicyService) {}

  @Get()
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: "The organisation's policy: its version and rules (admin session only)" })
  @ApiOkResponse({ type: PolicyDto })
  @ApiErrors(401, 403, 404)
  get(@Param('orgId') orgId: string): Promise<PolicyDto> {
    return this.policies.get(orgId);
  }

  @Put()
  @RestAuth({ sessionOnly: true })
  @RequireRecentSignIn()
  @ApiOperation({
    summary:
      'Replace the rules from the current version (409 when another save came first); needs a sign-in of the last 15 minutes (401 reauthentication_required) (admin session only)',
  })
  @ApiOkResponse({ type: PolicyDto })
  @ApiErrors(400, 401, 403, 404, 409)
  replace(@Param('orgId') orgId: string, @Body() body: UpdatePolicyDto, @RequestActor() actor: AuditActor): Promise<PolicyDto> {
    return this.policies.replace(orgId, body.version, body.rules, actor);
  }

  @Post('evaluate')
  @HttpCode(200)
  @RestAuth({ sessionOnly: true })
  @ApiOperation({ summary: 'Which rule a sample call matches and its effect, under the saved rules or the given ones (admin session only)' })
  @ApiOkResponse({ type: PolicyEvaluationDto })
  @ApiErrors(400, 401, 403, 404)
  evaluate(@Param('orgId') orgId: string, @Body() body: EvaluatePolicyDto): Promise<PolicyEvaluationDto> {
    return this.policies.evaluate(orgId, body);
  }
}
