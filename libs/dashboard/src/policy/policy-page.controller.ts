import { Body, Get, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CapabilityRegistry } from '@app/capabilities';
import { DomainError, HTTP_STATUS_OF_KIND } from '@app/common';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { InvalidPolicyError, PolicyService, type EvaluatePolicyDto, type PolicyDto, type PolicyEvaluationDto } from '@app/policy';
import { ProjectDirectory } from '@app/tenancy';
import { sendPage, sendRedirect, singleParam } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { PageRecentSignIn, RecentSignInRefusal } from '../recent-sign-in-form';
import { sectionPath } from '../views/layout';
import { noticeOf } from '../views/when';
import { type PolicyForm, policyPage, rulesText, type RulesError } from './policy.view';

const NOTICES: Record<string, string> = { saved: 'Policy saved. Every instance applies it from the next call.' };
const PROJECT_CHOICES = 100;

/**
 * The policy page (admins): what `GET/PUT /api/organizations/:orgId/policy` and `POST
 * …/policy/evaluate` do, as a page. A save needs a sign-in of the last 15 minutes: the form's
 * password field re-authenticates first when it is filled in (single sign-on: the step-up link).
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/policy')
export class PolicyPageController {
  constructor(
    private readonly policies: PolicyService,
    private readonly registry: CapabilityRegistry,
    private readonly projects: ProjectDirectory,
    private readonly recentSignIn: PageRecentSignIn,
  ) {}

  @Get()
  @PageAuth()
  async show(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const policy = await this.policies.get(currentOrganization(ctx).id);
    const form = emptyForm(policy);
    await this.render(ctx, res, 200, policy, form, { notice: noticeOf(NOTICES, query) });
  }

  @Post()
  @PageAuth()
  async save(@Dashboard() ctx: DashboardContext, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const form = formFrom(body);
    const rules = rulesOf(form);
    if (!Array.isArray(rules)) return this.refuse(ctx, res, 400, { ...form, errors: { rules } });
    const password = singleParam(body, 'password').value;
    try {
      await this.recentSignIn.require(ctx, password, 'Changing the policy');
      const version = Number.parseInt(form.version, 10);
      await this.policies.replace(orgId, Number.isSafeInteger(version) ? version : -1, rules, ctx.actor);
    } catch (error) {
      if (error instanceof RecentSignInRefusal) return this.refuse(ctx, res, error.status, { ...form, askPassword: true, errors: { password: error.message } });
      if (error instanceof InvalidPolicyError) return this.refuse(ctx, res, 400, { ...form, errors: { rules: rulesErrorOf(error, rules) } });
      if (error instanceof DomainError && error.kind !== 'unavailable') {
        return this.refuse(ctx, res, HTTP_STATUS_OF_KIND[error.kind], { ...form, errors: { rules: { message: error.message } } });
      }
      throw error;
    }
    sendRedirect(res, 303, `${sectionPath(orgId, 'policy')}?done=saved`);
  }

  @Post('try')
  @PageAuth()
  async try(@Dashboard() ctx: DashboardContext, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const form = formFrom(body);
    const rules = rulesOf(form);
    if (!Array.isArray(rules)) return this.refuse(ctx, res, 400, { ...form, errors: { rules } });
    const args = form.call.args.trim() === '' ? {} : parseJson(form.call.args, 'The arguments');
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return this.refuse(ctx, res, 400, { ...form, errors: { call: typeof args === 'string' ? args : 'The arguments must be a JSON object' } });
    }
    const call = {
      projectId: form.call.projectId,
      tool: form.call.tool,
      args: args as Record<string, unknown>,
      credentialKind: form.call.credentialKind as EvaluatePolicyDto['call']['credentialKind'],
      ...(form.call.clientId ? { clientId: form.call.clientId } : {}),
      ...(form.call.userId ? { userId: form.call.userId } : {}),
    };
    let tried: PolicyEvaluationDto;
    try {
      tried = await this.policies.evaluate(orgId, { call, rules } as EvaluatePolicyDto);
    } catch (error) {
      if (error instanceof InvalidPolicyError) return this.refuse(ctx, res, 400, { ...form, errors: { rules: rulesErrorOf(error, rules) } });
      if (error instanceof DomainError && error.kind === 'invalid_input') return this.refuse(ctx, res, 400, { ...form, errors: { call: error.message } });
      throw error;
    }
    await this.render(ctx, res, 200, await this.policies.get(orgId), form, { tried });
  }

  private async refuse(ctx: DashboardContext, res: Response, status: number, form: PolicyForm): Promise<void> {
    await this.render(ctx, res, status, await this.policies.get(currentOrganization(ctx).id), form);
  }

  private async render(ctx: DashboardContext, res: Response, status: number, policy: PolicyDto, form: PolicyForm, extra: { notice?: string; tried?: PolicyEvaluationDto } = {}) {
    const projects = await this.projects.page(currentOrganization(ctx).id, PROJECT_CHOICES);
    sendPage(
      res,
      status,
      policyPage(ctx, {
        policy,
        form,
        tools: this.registry.names,
        projects: projects.map((p) => ({ id: p.id, name: p.name })),
        ...extra,
      }),
    );
  }
}

function emptyForm(policy: PolicyDto): PolicyForm {
  return {
    version: String(policy.version),
    rules: rulesText(policy.rules),
    call: { projectId: '', tool: 'update_task', args: '{"id": "task-id", "status": "done"}', credentialKind: 'oauth', clientId: '', userId: '' },
    errors: {},
  };
}

/** The posted fields as the form shows them again. */
function formFrom(body: Record<string, unknown> | undefined): PolicyForm {
  const text = (name: string) => singleParam(body, name).value ?? '';
  return {
    version: text('version'),
    rules: text('rules'),
    call: { projectId: text('projectId'), tool: text('tool'), args: text('args'), credentialKind: text('credentialKind'), clientId: text('clientId'), userId: text('userId') },
    errors: {},
  };
}

/** The typed rules as a list, or what is wrong with the text. */
function rulesOf(form: PolicyForm): unknown[] | RulesError {
  const rules = parseJson(form.rules, 'The rules');
  if (Array.isArray(rules)) return rules;
  return { message: typeof rules === 'string' ? rules : 'The rules must be a JSON list of rules' };
}

/** The parsed JSON, or a sentence saying what is wrong with it. */
function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return `${what} are not valid JSON: ${(error as Error).message}`;
  }
}

/** The message, and for a condition the condition's text with the position the error names. */
function rulesErrorOf(error: InvalidPolicyError, rules: unknown[]): RulesError {
  const { index, field, position } = error.where;
  const rule = index !== undefined ? (rules[index] as { when?: unknown } | undefined) : undefined;
  if (field === 'when' && position !== undefined && typeof rule?.when === 'string') {
    return { message: error.message, condition: { text: rule.when, position } };
  }
  return { message: error.message };
}
