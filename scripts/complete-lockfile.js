#!/usr/bin/env node
/**
 * npm records only the current platform's optional binaries (@swc/core-*, resolver bindings)
 * in package-lock.json (npm/cli#4828), and `npm ci` then refuses the lock as out of sync on
 * every machine. This adds the missing platform entries, read from the registry, so that
 * `npm ci` works everywhere. Run after any `npm install` that rewrites the lock.
 */
const { execFileSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const lockPath = join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;
let added = 0;

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const nested = `${path}/node_modules/${name}`;
    if (packages[key] || packages[nested]) continue;
    const meta = JSON.parse(execFileSync('npm', ['view', `${name}@${range}`, '--json'], { encoding: 'utf8' }));
    const info = Array.isArray(meta) ? meta[meta.length - 1] : meta;
    const record = { version: info.version, integrity: info.dist.integrity };
    if (entry.dev) record.dev = true;
    record.optional = true;
    for (const field of ['license', 'cpu', 'os', 'libc', 'engines']) if (info[field]) record[field] = info[field];
    if (info.dependencies && Object.keys(info.dependencies).length) record.dependencies = info.dependencies;
    packages[key] = record;
    added += 1;
  }
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`package-lock.json: ${added} platform entries added\n`);
