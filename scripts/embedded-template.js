#!/usr/bin/env node
/**
 * Part of `npm run build`: the embedded database's pre-initialised data folder
 * (`dist/libs/database/src/embedded-template`, see libs/database/src/embedded-template.ts), which a
 * new `DATA_DIR/pg` is copied from instead of running initdb at the first start. Made once per
 * PGlite version (about 20 s); later builds keep it.
 */
const { join } = require('node:path');

const compiled = join(__dirname, '..', 'dist/libs/database/src/embedded-template.js');
const { createEmbeddedTemplate, EMBEDDED_TEMPLATE_DIR } = require(compiled);

const started = Date.now();
createEmbeddedTemplate(EMBEDDED_TEMPLATE_DIR).then(
  (made) => {
    if (made) process.stdout.write(`embedded database template made in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  },
  (error) => {
    process.stderr.write(`could not make the embedded database template: ${error.stack}\n`);
    process.exit(1);
  },
);
