#!/usr/bin/env node
/**
 * One named statement, 20 in flight, two ways: on a connection borrowed from a pool of 10 for
 * each statement (`queryStatement`, as `readStatement` ran before the read pipeline), and on the
 * read pipeline (`ReadPipeline`, libs/database/src/read-pipeline.ts: two connections of its own
 * in pg's pipeline mode). The statement is the agent-token lookup's shape over a table of 1,000
 * rows, asked for tokens that are not there (what a 401 costs). Prints, per way and round, the
 * client's CPU per statement, the PostgreSQL server's (its processes' CPU from /proc) and the
 * statements a second. Needs the build (`npm run build`) and the PostgreSQL server binaries.
 * Usage: node scripts/bench/pipeline-micro.js [STATEMENTS PER ROUND] [ROUNDS]
 */
const { join } = require('node:path');
const { readdirSync, readFileSync } = require('node:fs');
const { Pool } = require('pg');
const { findPostgresBin, startPostgres, stopPostgres } = require('../lib/postgres');
const { queryStatement } = require(join(__dirname, '../../dist/libs/database/src/statement-query.js'));
const { ReadPipeline } = require(join(__dirname, '../../dist/libs/database/src/read-pipeline.js'));

const N = Number(process.argv[2] ?? 20000);
const ROUNDS = Number(process.argv[3] ?? 4);
const IN_FLIGHT = 20;
const { LOOKUP: STATEMENT, createTokens } = require('./micro-tokens');
const TICK_US = 1e6 / 100; // /proc counts CPU in clock ticks (100 a second)

/** CPU (µs) of every process named postgres (the server whose cluster this script started is the only one it reads meanwhile). */
function serverCpuUs() {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // a process that ended meanwhile
    }
  }
  return ticks * TICK_US;
}

async function round(run, n) {
  let issued = 0;
  const before = process.cpuUsage();
  const serverBefore = serverCpuUs();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (issued < n) {
        issued++;
        const rows = await run([`unknown-${issued}`]);
        if (rows.length !== 0) throw new Error('an unknown token was found');
      }
    }),
  );
  const cpu = process.cpuUsage(before);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { client: (cpu.user + cpu.system) / n, server: (serverCpuUs() - serverBefore) / n, perSecond: n / seconds };
}

async function main() {
  const server = await startPostgres(findPostgresBin());
  const pool = new Pool({ connectionString: server.url('postgres'), max: 10 });
  const pipeline = new ReadPipeline({ connectionString: server.url('postgres') }, 2);
  try {
    await createTokens(pool);
    const ways = {
      pool: async (values) => {
        const client = await pool.connect();
        try {
          return await queryStatement(client, STATEMENT, values, true);
        } finally {
          client.release();
        }
      },
      pipeline: (values) => pipeline.query(STATEMENT, values),
    };
    await round(ways.pool, 5000);
    await round(ways.pipeline, 5000);
    console.log('| round | way | client µs | server µs | statements/s |\n|---:|---|---:|---:|---:|');
    for (let r = 1; r <= ROUNDS; r++) {
      for (const way of r % 2 ? ['pool', 'pipeline'] : ['pipeline', 'pool']) {
        const result = await round(ways[way], N);
        console.log(`| ${r} | ${way} | ${result.client.toFixed(1)} | ${result.server.toFixed(1)} | ${Math.round(result.perSecond)} |`);
      }
    }
    console.log(`\n${N} statements per round, ${IN_FLIGHT} in flight, Node ${process.version}`);
  } finally {
    await pipeline.close();
    await pool.end();
    await stopPostgres(server);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
