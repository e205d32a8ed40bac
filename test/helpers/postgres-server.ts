export { findPostgresBin, freePort, startPostgres, stopPostgres } from '../../scripts/lib/postgres';
export type { PostgresServer } from '../../scripts/lib/postgres';
