import { Body, Get, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '@app/common';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { canonicalHost, ClientPolicyService, MAX_ALLOWED_HOSTS, UpdateClientPolicyDto } from '@app/oauth';
import { sendPage, sendRedirect, singleParam } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { sectionPath } from '../views/layout';
import { noticeOf } from '../views/when';
import { ClientPolicyForm, clientPolicyPage, confirmPolicyPage, formOf } from './client-policy.view';

const NOTICES: Record<string, string> = {
  saved: 'Client policy saved.',
  ended: 'Client policy saved. The connections of the clients it refuses have ended.',
};

/**
 * The client policy (admins), linked from Connected clients: what `GET/PUT
 * /api/organizations/:orgId/client-policy` do, as a page. A change that would end connections
 * says which and how many, and is saved only once confirmed.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/clients/policy')
export class ClientPolicyPageController {
  constructor(private readonly policies: ClientPolicyService) {}

  @Get()
  @PageAuth()
  async show(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const policy = await this.policies.get(currentOrganization(ctx).id);
    sendPage(res, 200, clientPolicyPage(ctx, { policy, form: formOf(policy), notice: noticeOf(NOTICES, query) }));
  }

  @Post()
  @PageAuth()
  async save(@Dashboard() ctx: DashboardContext, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const orgId = currentOrganization(ctx).id;
    const form = formFrom(body);
    const errors = { ...form.errors };
    const lines = form.hosts.split(/\r?\n/).map((line, i) => ({ host: line.trim(), line: i + 1 })).filter((l) => l.host !== '');
    const listed = form.mode === 'listed';
    if (listed) {
      const bad = lines.find((l) => canonicalHost(l.host) === null);
      if (bad) errors.allowedHosts = `Line ${bad.line} is not a host name: give the host of a client_id URL, such as claude.ai (no scheme, path or wildcard)`;
      else if (lines.length > MAX_ALLOWED_HOSTS) errors.allowedHosts = `List at most ${MAX_ALLOWED_HOSTS} hosts`;
    }
    const input = listed ? { mode: form.mode, allowedHosts: lines.map((l) => l.host), allowRegisteredClients: form.allowRegisteredClients } : { mode: form.mode };
    const read = await readForm(UpdateClientPolicyDto, input, { mode: 'Clients that may connect', allowedHosts: 'Hosts' }, ['mode', 'allowedHosts', 'allowRegisteredClients']);
    if (read.errors.mode) errors.mode = 'Choose which clients may connect';
    if (read.errors.allowedHosts && !errors.allowedHosts) errors.allowedHosts = read.errors.allowedHosts;
    if (Object.keys(errors).length > 0) return this.refuse(ctx, res, { ...form, errors });
    try {
      if (singleParam(body, 'confirm').value !== 'yes') {
        const refused = await this.policies.refusedBy(orgId, read.value);
        if (refused.grants > 0) return sendPage(res, 200, confirmPolicyPage(ctx, form, refused));
      }
      const saved = await this.policies.update(orgId, read.value, ctx.actor);
      sendRedirect(res, 303, `${sectionPath(orgId, 'clients')}/policy?done=${saved.revokedGrants > 0 ? 'ended' : 'saved'}`);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_client_policy') return this.refuse(ctx, res, { ...form, errors: { allowedHosts: error.message } });
      throw error;
    }
  }

  private async refuse(ctx: DashboardContext, res: Response, form: ClientPolicyForm): Promise<void> {
    const policy = await this.policies.get(currentOrganization(ctx).id);
    sendPage(res, 400, clientPolicyPage(ctx, { policy, form }));
  }
}

/** The posted choices as the form shows them again (nothing but its own fields). */
function formFrom(body: Record<string, unknown> | undefined): ClientPolicyForm {
  const mode = singleParam(body, 'mode');
  const hosts = singleParam(body, 'allowedHosts');
  const registered = singleParam(body, 'allowRegisteredClients');
  const errors: ClientPolicyForm['errors'] = {};
  if (hosts.duplicate) errors.allowedHosts = 'Hosts was sent more than once';
  return {
    mode: mode.value === 'any' || mode.value === 'listed' ? mode.value : '',
    hosts: hosts.value ?? '',
    allowRegisteredClients: registered.value === 'true',
    errors,
  };
}
