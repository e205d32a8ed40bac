import { Body, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiKeysService, CreateApiKeyDto } from '@app/api-keys';
import { AppConfig } from '@app/config';
import { ApiKeyPermission } from '@app/credential-store';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { UserDirectory } from '@app/tenancy';
import { sendPage, sendRedirect } from '@app/web';
import { currentOrganization, Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { sectionPath } from '../views/layout';
import { cursorParam, noticeOf } from '../views/when';
import { apiKeysPage, createdApiKeyPage, NewApiKeyForm, newApiKeyPage, revokeApiKeyPage } from './api-keys.view';

const PAGE_SIZE = 25;
const NOTICES: Record<string, string> = { revoked: 'API key revoked. Requests made with it are refused from now on.' };

/** A read-only call a new key may make, to try it: the first listing its permissions allow. */
const TRY_PATHS: [ApiKeyPermission, string][] = [
  ['projects:read', 'projects'],
  ['service_keys:read', 'agent-service-keys'],
  ['members:read', 'members'],
  ['audit:read', 'audit-events'],
];

/**
 * The API keys section (admins): what `GET/POST /api/organizations/:orgId/api-keys` and
 * `POST …/api-keys/:keyId/revoke` do, as pages. The `rk_` secret appears only in the answer to
 * the POST that created it.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/api-keys')
export class ApiKeysPageController {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly users: UserDirectory,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @PageAuth()
  async list(@Dashboard() ctx: DashboardContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const org = currentOrganization(ctx);
    const cursor = cursorParam(query);
    const page = await this.keys.list(org.id, { limit: PAGE_SIZE, cursor });
    const creators = await this.users.profilesOf(page.items.flatMap((k) => (k.createdBy ? [k.createdBy] : [])));
    const keys = page.items.map((k) => ({ ...k, createdByName: (k.createdBy && creators.get(k.createdBy)?.name) || null }));
    sendPage(res, 200, apiKeysPage(ctx, { keys, nextCursor: page.nextCursor, onFirstPage: cursor === undefined, notice: noticeOf(NOTICES, query) }));
  }

  @Get('new')
  @PageAuth()
  newForm(@Dashboard() ctx: DashboardContext, @Res() res: Response): void {
    sendPage(res, 200, newApiKeyPage(ctx, { name: '', permissions: [], expiresAt: '', errors: {} }));
  }

  @Post()
  @PageAuth()
  async create(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const permissions = ([] as unknown[]).concat(body?.permissions ?? []);
    const expiresAt = body?.expiresAt === '' ? undefined : body?.expiresAt;
    const form = await readForm(CreateApiKeyDto, { name: body?.name, permissions, expiresAt }, { name: 'Name', permissions: 'Permissions', expiresAt: 'Expiry' }, [
      'name',
      'permissions',
      'expiresAt',
    ]);
    if (!form.valid) {
      const errors = { ...form.errors };
      if (errors.permissions) errors.permissions = permissions.length === 0 ? 'Choose at least one permission' : 'Choose permissions from the list';
      if (errors.expiresAt && !errors.expiresAt.includes('cannot be stored')) {
        errors.expiresAt = typeof expiresAt === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(expiresAt) && Date.parse(expiresAt) <= Date.now()
          ? 'Choose a day after today, or leave the expiry empty'
          : 'Enter the expiry as a date (year-month-day), or leave it empty';
      }
      return sendPage(res, 400, newApiKeyPage(ctx, {
        name: typeof body?.name === 'string' ? body.name : '',
        permissions: permissions.filter((p): p is string => typeof p === 'string'),
        expiresAt: typeof expiresAt === 'string' && expiresAt.length <= 40 ? expiresAt : '',
        errors,
      }));
    }
    const created = await this.keys.create(orgId, form.value, ctx.actor);
    const listing = TRY_PATHS.find(([permission]) => created.permissions.includes(permission));
    const url = listing ? `${this.config.baseUrl}/api/organizations/${orgId}/${listing[1]}` : `${this.config.baseUrl}/api/permissions`;
    sendPage(res, 200, createdApiKeyPage(ctx, created, `curl -H "Authorization: Bearer ${created.key}" ${url}`));
  }

  @Get(':keyId/revoke')
  @PageAuth()
  async confirmRevoke(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('keyId') keyId: string, @Res() res: Response): Promise<void> {
    const key = await this.keys.get(orgId, keyId);
    if (key.status === 'revoked') return sendRedirect(res, 303, sectionPath(orgId, 'api-keys'));
    sendPage(res, 200, revokeApiKeyPage(ctx, key));
  }

  @Post(':keyId/revoke')
  @PageAuth()
  async revoke(@Dashboard() ctx: DashboardContext, @Param('orgId') orgId: string, @Param('keyId') keyId: string, @Res() res: Response): Promise<void> {
    await this.keys.revoke(orgId, keyId, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(orgId, 'api-keys')}?done=revoked`);
  }
}
