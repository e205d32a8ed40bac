import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { Public } from '@app/credentials';
import { DASHBOARD_SCRIPT_PATH } from '@app/web';
import { DASHBOARD_SCRIPT } from './dashboard-script';

const ETAG = `"${createHash('sha256').update(DASHBOARD_SCRIPT).digest('base64url').slice(0, 22)}"`;

/** Serves the dashboard's one script file, from this service (so `script-src 'self'` admits it). */
@Public()
@ApiExcludeController()
@Controller()
export class AssetsController {
  @Get(DASHBOARD_SCRIPT_PATH)
  script(@Res() res: Response): void {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('ETag', ETAG);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (res.req.headers['if-none-match'] === ETAG) {
      res.status(304).end();
      return;
    }
    res.send(DASHBOARD_SCRIPT);
  }
}
