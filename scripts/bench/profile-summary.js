#!/usr/bin/env node
/**
 * Reads a V8 CPU profile (`npm run bench -- --profile DIR` writes one for the service) and prints
 * where the busy time went: self time by area (the MCP SDK, Nest, Express, pg, zod, the gateway's
 * own libraries, Node's HTTP and streams, garbage collection…) and the heaviest functions.
 * Idle time is left out of the shares. When the bench left `measured-windows.json` beside the
 * profile, only the samples taken during the measured runs count (no start-up, no seeding, no
 * warm-up). Usage: node profile-summary.js FILE.cpuprofile [TOP] [LABEL]  (LABEL: only the
 * windows of the scenarios whose name contains it)
 */
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));

const windowsFile = join(dirname(file), 'measured-windows.json');
const label = process.argv[4];
const windows = existsSync(windowsFile)
  ? JSON.parse(readFileSync(windowsFile, 'utf8')).filter((w) => !label || (w.label ?? '').includes(label))
  : undefined;
const inWindow = (t) => !windows || windows.some((w) => t >= w.start && t <= w.end);

/** Self time per node id, from the sample stream (timeDeltas are in microseconds, from startTime). */
const selfUs = new Map();
let t = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i] ?? 0;
  if (!inWindow(t)) continue;
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

const AREAS = [
  ['(idle)', (f, u) => f === '(idle)'],
  ['garbage collection', (f) => f === '(garbage collector)'],
  ['(program: V8 and native)', (f) => f === '(program)'],
  ['MCP SDK', (f, u) => /@modelcontextprotocol\//.test(u)],
  ['zod', (f, u) => /node_modules\/zod\//.test(u)],
  ['Nest', (f, u) => /@nestjs\//.test(u)],
  ['Express and its middleware', (f, u) => /node_modules\/(express|body-parser|router|raw-body|finalhandler|send|on-finished|type-is|content-type|cors|qs|cookie|helmet|iconv-lite|http-errors)\//.test(u)],
  ['passport', (f, u) => /node_modules\/passport/.test(u)],
  ['pg and TypeORM', (f, u) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|typeorm)\//.test(u)],
  ['prom-client', (f, u) => /node_modules\/prom-client\//.test(u)],
  ['gateway code', (f, u) => /\/dist\/(libs|apps)\//.test(u)],
  ['other packages', (f, u) => /node_modules\//.test(u)],
  ['Node: HTTP, streams, net, web streams', (f, u) => /^node:(_http|http|internal\/(http|streams|webstreams|stream_base|net|js_stream)|net|stream|buffer|events|internal\/deps\/undici|internal\/url)/.test(u) || /^node:internal\/(deps|webstreams|event_target|abort)/.test(u)],
  ['Node: other', (f, u) => u.startsWith('node:')],
  ['other', () => true],
];
const areaOf = (frame) => AREAS.find(([, test]) => test(frame.functionName, frame.url ?? ''))[0];

const byArea = new Map();
const byFunction = new Map();
let total = 0;
let idle = 0;
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (!us) continue;
  const area = areaOf(node.callFrame);
  if (area === '(idle)') {
    idle += us;
    continue;
  }
  total += us;
  byArea.set(area, (byArea.get(area) ?? 0) + us);
  const where = (node.callFrame.url ?? '').replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
  const key = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
}

const pct = (us) => `${((100 * us) / total).toFixed(1)}%`;
const ms = (us) => `${(us / 1000).toFixed(0)} ms`;
const lines = [`${windows ? `${windows.length} measured runs; ` : ''}busy ${ms(total)}, idle ${ms(idle)} (${((100 * idle) / (idle + total)).toFixed(0)}% of the profile)`, '', '| area | self time | share of busy |', '|---|---:|---:|'];
for (const [area, us] of [...byArea].sort((a, b) => b[1] - a[1])) lines.push(`| ${area} | ${ms(us)} | ${pct(us)} |`);
lines.push('', '| function | self time | share of busy |', '|---|---:|---:|');
for (const [fn, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`| \`${fn}\` | ${ms(us)} | ${pct(us)} |`);
process.stdout.write(`${lines.join('\n')}\n`);
