#!/usr/bin/env node
/**
 * What recording and sealing a read costs the service, alone: each build's `BufferedRecords`
 * records allowed reads (`recordRead`, as a `tools/call get_task` does), writes them in its
 * batches and its `AuditSealer` seals them, on a throwaway PostgreSQL migrated by that build, in
 * alternating rounds; prints the process's CPU per read (µs) of each build and the paired ratios.
 * No HTTP, no MCP: the machine's other load moves these figures far less than `npm run bench`'s.
 * Needs the build (`npm run build`) and the PostgreSQL server binaries.
 * Usage: node scripts/bench/audit-micro.js [--baseline DIR (another build, say main's)] [--reads N] [--rounds N]
 */
const { randomUUID } = require('node:crypto');
const { join } = require('node:path');
const { DataSource } = require('typeorm');
const { findPostgresBin, startPostgres, stopPostgres } = require('../lib/postgres');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const READS = Number(option('reads', 20000));
const ROUNDS = Number(option('rounds', 5));
const builds = { gateway: join(__dirname, '../..') };
if (option('baseline')) builds.baseline = option('baseline');

/** One build's recorder and sealer over its own database. */
async function recorderOf(root, url) {
  const lib = (path) => require(join(root, 'dist/libs', path));
  const { MIGRATIONS } = lib('database/src/migrations/index.js');
  const { SnakeNamingStrategy } = lib('database/src/snake-naming.strategy.js');
  const dataSource = new DataSource({ type: 'postgres', url, migrations: MIGRATIONS, namingStrategy: new SnakeNamingStrategy(), migrationsTransactionMode: 'each' });
  await dataSource.initialize();
  await dataSource.runMigrations();
  const { AuditEventsRepository } = lib('audit/src/audit-events.repository.js');
  const { AuditChainRepository } = lib('audit/src/chain/audit-chain.repository.js');
  const { AuditSealer } = lib('audit/src/chain/audit-sealer.js');
  const { CheckpointSigner } = lib('audit/src/chain/checkpoint-signer.js');
  const { SealingNudge } = lib('audit/src/chain/sealing-nudge.js');
  const { BufferedRecords } = lib('audit/src/buffered-records.js');
  const nudge = new SealingNudge();
  const events = new AuditEventsRepository(dataSource);
  const chains = new AuditChainRepository(dataSource);
  const signer = new CheckpointSigner({ secretsKeys: [{ id: 'k1', key: Buffer.alloc(32, 1) }] });
  // A build that writes its batches sealed gives its sealer the events' repository, and its
  // recorder the sealer; a build before it (say, a baseline) gives its recorder the repository.
  const sealsOnWrite = AuditSealer.length === 5;
  const sealer = sealsOnWrite ? new AuditSealer(dataSource, chains, events, signer, nudge) : new AuditSealer(dataSource, chains, signer, nudge);
  const records = sealsOnWrite ? new BufferedRecords(sealer) : new BufferedRecords(events, nudge);
  const [{ id: organizationId }] = await dataSource.query(`INSERT INTO organizations (name) VALUES ('Bench') RETURNING id`);
  // Its rounds run as in the service: 50 ms after each batch is written, and every 500 ms.
  sealer.onApplicationBootstrap();
  const projectId = randomUUID();
  const credential = { tokenId: randomUUID(), serviceKeyId: randomUUID(), grantId: null, clientId: null, serviceKeyName: 'bench key', origin: { ip: '::ffff:127.0.0.1', userAgent: 'bench' } };
  return {
    dataSource,
    stop: () => sealer.onApplicationShutdown(),
    /** Records and seals `n` reads; the process's CPU per read (µs). */
    async run(n) {
      const before = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        records.recordRead({ organizationId, projectId, credential, tool: 'get_task', outcome: 'succeeded', args: { id: randomUUID() } });
        // A pause every 100 reads, so that batches are written and sealed between reads as in the service.
        if (i % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await records.flush();
      await sealer.sealNow();
      const cpu = process.cpuUsage(before);
      const [{ unsealed }] = await dataSource.query(`SELECT count(*)::int AS unsealed FROM audit_events WHERE seq IS NULL`);
      if (unsealed !== 0) throw new Error(`${unsealed} records left unsealed`);
      return (cpu.user + cpu.system) / n;
    },
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const bin = findPostgresBin();
  const servers = [];
  const recorders = {};
  try {
    for (const [name, root] of Object.entries(builds)) {
      const server = await startPostgres(bin);
      servers.push(server);
      recorders[name] = await recorderOf(root, server.url('postgres'));
      await recorders[name].run(2000);
    }
    const names = Object.keys(recorders);
    const figures = Object.fromEntries(names.map((n) => [n, []]));
    console.log(`| round | ${names.map((n) => `${n} µs per read`).join(' | ')} |${names.length > 1 ? ' baseline ÷ gateway |' : ''}`);
    console.log(`|---:|${names.map(() => '---:').join('|')}|${names.length > 1 ? '---:|' : ''}`);
    for (let r = 1; r <= ROUNDS; r++) {
      for (const name of r % 2 ? names : [...names].reverse()) figures[name].push(await recorders[name].run(READS));
      const row = names.map((n) => figures[n][r - 1].toFixed(1));
      console.log(`| ${r} | ${row.join(' | ')} |${names.length > 1 ? ` ${(figures.baseline[r - 1] / figures.gateway[r - 1]).toFixed(2)}× |` : ''}`);
    }
    const medians = names.map((n) => median(figures[n]).toFixed(1));
    const ratio = names.length > 1 ? ` ${median(figures.baseline.map((b, i) => b / figures.gateway[i])).toFixed(2)}× |` : '';
    console.log(`| median | ${medians.join(' | ')} |${ratio}`);
  } finally {
    for (const recorder of Object.values(recorders)) {
      await recorder.stop();
      await recorder.dataSource.destroy();
    }
    for (const server of servers) await stopPostgres(server);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
