import { Logger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';

/**
 * TypeORM's own loggers print a failed query with its parameters, and parameters can hold
 * hashes or personal data. This one logs failures by message and SQLSTATE only, never the
 * parameters, and the SQL text only at debug level.
 */
export class QuietQueryLogger implements TypeOrmLogger {
  private readonly logger = new Logger('Database');

  logQuery(): void {}

  logQueryError(error: string | Error, query: string): void {
    const e = error as Error & { code?: string };
    this.logger.warn(`query failed${e.code ? ` (SQLSTATE ${e.code})` : ''}: ${typeof error === 'string' ? error : error.message}`);
    this.logger.debug(`failed query: ${query}`);
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn(`slow query (${time} ms): ${query.slice(0, 200)}`);
  }

  logSchemaBuild(): void {}

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
  }
}
