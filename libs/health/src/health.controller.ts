import { Controller, Get, Header, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '@app/credentials';
import { DATABASE_RETRY_AFTER_SECONDS } from '@app/database';
import { Readiness } from './readiness';

@Public()
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly readiness: Readiness,
  ) {}

  /** The process is up. */
  @Get('live')
  @Header('Cache-Control', 'no-store')
  live() {
    return { status: 'ok' };
  }

  /** The process can serve: it is not shutting down, and the database answers. */
  @Get('ready')
  @Header('Cache-Control', 'no-store')
  async ready(@Res({ passthrough: true }) res: Response) {
    if (this.readiness.draining) throw new ServiceUnavailableException('Shutting down');
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      res.setHeader('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      throw new ServiceUnavailableException('Database unreachable');
    }
    return { status: 'ok', database: 'ok' };
  }
}
