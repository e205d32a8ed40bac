/**
 * A require hook that lets a child process run the TypeScript sources directly
 * (`node -r ./test/helpers/register-ts.cjs apps/gateway/src/main.ts`): it compiles each `.ts`
 * file with swc (the transform Jest uses) and resolves the `@app/<lib>` aliases. Tests use it to
 * start the real entry point without a build. It is test tooling, never used in production.
 *
 * A suite starts the entry point dozens of times, and each start would compile every source file
 * again and have V8 compile the results (together about 0.9 of the 5.9 CPU-seconds a start to
 * readiness took, docs/testing.md). So swc's output
 * is kept on disk under `node_modules/.cache/register-ts`, keyed by the source, its path, the
 * options and swc's version, and where Node has it (22 and later) its compile cache keeps V8's
 * code for every module the process loads beside it (docs/testing.md, "CI time").
 */
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { transformSync, version: swcVersion } = require('@swc/core');
const swcOptions = require('./swc-options.cjs');

const root = join(__dirname, '..', '..');
const ALIAS = /^@app\/([^/]+)(\/.*)?$/;
const CACHE_DIR = join(root, 'node_modules', '.cache', 'register-ts');
const OPTIONS_KEY = `${swcVersion}\n${JSON.stringify(swcOptions)}`;

Module.enableCompileCache?.(join(root, 'node_modules', '.cache', 'node-compile'));

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = ALIAS.exec(request);
  const target = alias ? join(root, 'libs', alias[1], 'src', alias[2] ?? '') : request;
  return resolveFilename.call(this, target, ...rest);
};

/** swc's output for one file, from the cache or compiled and then kept (written whole, then renamed: other processes read it meanwhile). */
function compiled(filename, source) {
  const key = createHash('sha256').update(OPTIONS_KEY).update('\0').update(filename).update('\0').update(source).digest('hex');
  const file = join(CACHE_DIR, key.slice(0, 2), `${key}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // not compiled yet
  }
  const { code } = transformSync(source, { ...swcOptions, filename });
  try {
    mkdirSync(join(CACHE_DIR, key.slice(0, 2)), { recursive: true });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, code);
    renameSync(partial, file);
  } catch {
    // a cache that cannot be written only costs the next start its compile
  }
  return code;
}

require.extensions['.ts'] = (module, filename) => {
  module._compile(compiled(filename, readFileSync(filename, 'utf8')), filename);
};
