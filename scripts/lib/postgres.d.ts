export interface PostgresServer {
  url(database: string): string;
  port: number;
  dir: string;
  bin: string;
  startArgs: string[];
}
export function findPostgresBin(): string | undefined;
export function freePort(): Promise<number>;
export function startPostgres(bin: string, settings?: Record<string, string>): Promise<PostgresServer>;
export function stopPostgres(server: { dir: string; bin: string }): void;
export function haltPostgres(server: PostgresServer): void;
export function restartPostgres(server: PostgresServer): void;
