import { Body, Get, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, HTTP_STATUS_OF_KIND, isUuid, RotateDto } from '@app/common';
import { AppConfig } from '@app/config';
import { OrganizationRoute, PageAuth } from '@app/credentials';
import { ProjectNotFoundError, ProjectsService } from '@app/projects';
import {
  DeriveProjectTokenDto,
  ProjectTokenExistsError,
  ProjectTokenNotFoundError,
  ServiceKeyDto,
  ServiceKeysService,
} from '@app/service-keys';
import { sendPage, sendRedirect } from '@app/web';
import { Dashboard, DashboardContext } from '../dashboard-context';
import { DashboardController } from '../dashboard-controller.decorator';
import { readForm } from '../form';
import { sectionPath } from '../views/layout';
import { revokeTokenPage, rotateTokenPage, tokenSecretPage } from './project-token.view';
import { serviceKeyPage } from './service-key.view';
import { deriveChoices } from './service-keys.pages';

/**
 * A service key's derived tokens as pages: derive (`POST …/tokens`), rotate and revoke one, on
 * the same `ServiceKeysService` as REST. A new secret is only ever in the 200 answer to the POST
 * that made it: never in a redirect, a cookie or anything stored.
 */
@OrganizationRoute('orgId')
@DashboardController('orgs/:orgId/service-keys/:keyId/tokens')
export class ProjectTokensPageController {
  constructor(
    private readonly config: AppConfig,
    private readonly serviceKeys: ServiceKeysService,
    private readonly projects: ProjectsService,
  ) {}

  @Post()
  @PageAuth()
  async derive(
    @Dashboard() ctx: DashboardContext,
    @Param('orgId') orgId: string,
    @Param('keyId') keyId: string,
    @Body() body: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const key = await this.serviceKeys.get(orgId, keyId);
    const expiresAt = body?.expiresAt === '' ? undefined : body?.expiresAt;
    const form = await readForm(DeriveProjectTokenDto, { projectId: body?.projectId, expiresAt }, { projectId: 'Project', expiresAt: 'Expiry' }, [
      'projectId',
      'expiresAt',
    ]);
    const chosen = typeof body?.projectId === 'string' ? body.projectId : '';
    if (!form.valid) {
      const expiry = typeof expiresAt === 'string' && expiresAt.length <= 40 ? expiresAt : '';
      const expiryError = !form.errors.expiresAt
        ? undefined
        : form.errors.expiresAt.includes('cannot be stored')
          ? form.errors.expiresAt
          : /^\d{4}-\d{2}-\d{2}$/.test(expiry) && Date.parse(expiry) <= Date.now()
            ? 'Choose a day after today, or leave the expiry empty'
            : 'Enter the expiry as a date (year-month-day), or leave it empty';
      return this.refuseDerive(res, ctx, key, 400, chosen, form.errors.projectId ? 'Choose one of the projects' : undefined, { expiresAt: expiry, expiryError });
    }
    try {
      const derived = await this.serviceKeys.deriveToken(orgId, keyId, form.value, ctx.actor);
      const project = await this.projects.get(orgId, derived.projectId);
      sendPage(res, 200, tokenSecretPage(ctx, { key, projectName: project.name, token: derived.token, mcpUrl: this.config.mcpResourceUrl }));
    } catch (error) {
      if (error instanceof ProjectNotFoundError) return this.refuseDerive(res, ctx, key, 404, chosen, 'Choose one of this organisation’s projects');
      if (error instanceof ProjectTokenExistsError) {
        const message = 'This key already has a token for that project. Rotate it to get a new secret, or revoke it first.';
        return this.refuseDerive(res, ctx, key, HTTP_STATUS_OF_KIND[(error as DomainError).kind], chosen, message);
      }
      throw error;
    }
  }

  @Get(':tokenId/rotate')
  @PageAuth()
  async rotateForm(@Dashboard() ctx: DashboardContext, @Param() p: TokenParams, @Res() res: Response): Promise<void> {
    sendPage(res, 200, rotateTokenPage(ctx, await this.tokenOf(p)));
  }

  @Post(':tokenId/rotate')
  @PageAuth()
  async rotate(@Dashboard() ctx: DashboardContext, @Param() p: TokenParams, @Body() body: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const found = await this.tokenOf(p);
    const raw = body?.overlapSeconds;
    // A select sends text; REST sends a number. Digits become the number, anything else is judged (and refused) as sent.
    const plain = { overlapSeconds: typeof raw === 'string' && /^\d{1,7}$/.test(raw) ? Number(raw) : raw };
    const form = await readForm(RotateDto, plain, { overlapSeconds: 'How long the current token keeps working' }, ['overlapSeconds']);
    if (!form.valid) {
      const error = 'Choose how long the current token keeps working: from at once to 7 days';
      return sendPage(res, 400, rotateTokenPage(ctx, { ...found, form: { overlapSeconds: typeof raw === 'string' ? raw : '', error } }));
    }
    const rotated = await this.serviceKeys.rotateToken(p.orgId, p.keyId, p.tokenId, form.value, ctx.actor);
    sendPage(
      res,
      200,
      tokenSecretPage(ctx, {
        key: found.key,
        projectName: found.projectName,
        token: rotated.token,
        mcpUrl: this.config.mcpResourceUrl,
        previousWorksUntil: rotated.rotatingOutUntil,
      }),
    );
  }

  @Get(':tokenId/revoke')
  @PageAuth()
  async confirmRevoke(@Dashboard() ctx: DashboardContext, @Param() p: TokenParams, @Res() res: Response): Promise<void> {
    sendPage(res, 200, revokeTokenPage(ctx, await this.tokenOf(p)));
  }

  @Post(':tokenId/revoke')
  @PageAuth()
  async revoke(@Dashboard() ctx: DashboardContext, @Param() p: TokenParams, @Res() res: Response): Promise<void> {
    await this.serviceKeys.revokeToken(p.orgId, p.keyId, p.tokenId, ctx.actor);
    sendRedirect(res, 303, `${sectionPath(p.orgId, 'service-keys')}/${p.keyId}?done=token-revoked`);
  }

  /** The key, one of its tokens and the token's project name; another key's token (or none) is 404. */
  private async tokenOf(p: TokenParams) {
    const key = await this.serviceKeys.get(p.orgId, p.keyId);
    const token = key.tokens.find((t) => t.id === p.tokenId);
    if (!token) throw new ProjectTokenNotFoundError();
    const names = await this.projects.namesOf(p.orgId, [token.projectId]);
    return { key, token, projectName: names.get(token.projectId) ?? 'a deleted project' };
  }

  /** The key page again, with the derive form's error next to "Project". */
  private async refuseDerive(
    res: Response,
    ctx: DashboardContext,
    key: ServiceKeyDto,
    status: number,
    projectId: string,
    error: string | undefined,
    expiry: { expiresAt?: string; expiryError?: string } = {},
  ): Promise<void> {
    const orgId = ctx.organization!.id;
    const tokens = await this.serviceKeys.listTokens(orgId, key.id);
    const [choices, tokenProjects] = await Promise.all([
      deriveChoices(this.projects, orgId, { query: '' }, isUuid(projectId) ? projectId : undefined),
      this.projects.namesOf(orgId, tokens.items.map((t) => t.projectId)),
    ]);
    sendPage(
      res,
      status,
      serviceKeyPage(ctx, { key, tokens: tokens.items, nextCursor: tokens.nextCursor, onFirstPage: true, choices, tokenProjects, form: { projectId, error, ...expiry } }),
    );
  }
}

interface TokenParams {
  orgId: string;
  keyId: string;
  tokenId: string;
}
