import { Controller, Get, Header, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '@app/credentials';
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
  async ready() {
    if (this.readiness.draining) throw new ServiceUnavailableException('Shutting down');
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      throw new ServiceUnavailableException('Database unreachable');
    }
    return { status: 'ok', database: 'ok' };
  }
}
