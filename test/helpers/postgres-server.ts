export { findPostgresBin, freePort, haltPostgres, restartPostgres, startPostgres, stopPostgres } from '../../scripts/lib/postgres';
export type { PostgresServer } from '../../scripts/lib/postgres';
