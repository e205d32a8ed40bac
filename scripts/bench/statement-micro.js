#!/usr/bin/env node
/**
 * The client's side of one named statement: pg's own query (`client.query({ name, text, values })`,
 * as `runStatement` ran it before) against the gateway's (`queryStatement`,
 * libs/database/src/statement-query.ts), on a throwaway PostgreSQL, 10 statements in flight on 10
 * pooled connections, both prepared. The statement is the agent-token lookup's shape (11
 * columns: uuids, text, a text array, timestamps) over a table of 1,000 rows. Prints the
 * service's CPU per statement for each, in alternating rounds, and the median of the paired
 * ratios. Needs the build (`npm run build`) and the PostgreSQL server binaries.
 * Usage: node scripts/bench/statement-micro.js [STATEMENTS PER ROUND] [ROUNDS]
 */
const { join } = require('node:path');
const { Pool } = require('pg');
const { findPostgresBin, startPostgres, stopPostgres } = require('../lib/postgres');
const { queryStatement } = require(join(__dirname, '../../dist/libs/database/src/statement-query.js'));

const N = Number(process.argv[2] ?? 20000);
const ROUNDS = Number(process.argv[3] ?? 8);
const IN_FLIGHT = 10;
const { LOOKUP: STATEMENT, createTokens } = require('./micro-tokens');

const ways = {
  pg: async (client, values) => (await client.query({ name: STATEMENT.name, text: STATEMENT.text, values })).rows,
  gateway: (client, values) => queryStatement(client, STATEMENT, values, true),
};

async function round(pool, way, n) {
  let issued = 0;
  const before = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (issued < n) {
        issued++;
        const client = await pool.connect();
        try {
          const rows = await ways[way](client, [`h${1 + (issued % 1000)}`]);
          if (rows.length !== 1 || !(rows[0].expires_at instanceof Date) || rows[0].permissions.length !== 2) throw new Error(`unexpected rows from ${way}`);
        } finally {
          client.release();
        }
      }
    }),
  );
  const cpu = process.cpuUsage(before);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { cpuUs: (cpu.user + cpu.system) / n, perSecond: n / seconds };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const server = await startPostgres(findPostgresBin());
  const pool = new Pool({ connectionString: server.url('postgres'), max: IN_FLIGHT });
  try {
    await createTokens(pool);
    await round(pool, 'pg', 5000);
    await round(pool, 'gateway', 5000);
    const ratios = [];
    console.log('| round | pg µs | gateway µs | pg ÷ gateway | pg /s | gateway /s |\n|---:|---:|---:|---:|---:|---:|');
    for (let r = 1; r <= ROUNDS; r++) {
      const order = r % 2 ? ['pg', 'gateway'] : ['gateway', 'pg'];
      const result = {};
      for (const way of order) result[way] = await round(pool, way, N);
      ratios.push(result.pg.cpuUs / result.gateway.cpuUs);
      console.log(
        `| ${r} | ${result.pg.cpuUs.toFixed(1)} | ${result.gateway.cpuUs.toFixed(1)} | ${ratios.at(-1).toFixed(2)}× | ${Math.round(result.pg.perSecond)} | ${Math.round(result.gateway.perSecond)} |`,
      );
    }
    console.log(`\nmedian pg ÷ gateway, CPU per statement: ${median(ratios).toFixed(2)}× (${ratios.map((x) => x.toFixed(2)).join(', ')}); ${N} statements per round, ${IN_FLIGHT} in flight, Node ${process.version}`);
  } finally {
    await pool.end();
    await stopPostgres(server);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
