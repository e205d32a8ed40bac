#!/usr/bin/env node
/** Part of `npm run build`: copies the data files that libraries read at run time (`libs/*\/src/**\/*.txt`) beside their compiled code in `dist/`. */
const { cpSync, readdirSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.txt')) cpSync(path, join(dist, relative(root, path)));
  }
}

for (const lib of readdirSync(join(root, 'libs'))) walk(join(root, 'libs', lib, 'src'));
