import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { Public } from '@app/credentials';
import { DASHBOARD_SCRIPT_PATH, FAVICON_PATH } from '@app/web';
import { DASHBOARD_SCRIPT } from './dashboard-script';

const ETAG = `"${createHash('sha256').update(DASHBOARD_SCRIPT).digest('base64url').slice(0, 22)}"`;

/** The icon: a gateway arch on the pages' accent colour. */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0a58ca"/>' +
  '<path d="M8 25V13.5L16 7l8 6.5V25h-5v-8.5a3 3 0 0 0-6 0V25z" fill="#fff"/></svg>';

/** Serves the dashboard's one script file, from this service (so `script-src 'self'` admits it), and the icon. */
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

  /** The pages link `/favicon.svg`; browsers ask `/favicon.ico` on their own: both answer the icon, never a 404. */
  @Get([FAVICON_PATH, '/favicon.ico'])
  favicon(@Res() res: Response): void {
    res.setHeader('Content-Type', 'image/svg+xml');
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.send(FAVICON);
  }
}
