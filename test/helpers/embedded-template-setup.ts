/**
 * Makes the embedded database's initdb template beside the sources
 * (`libs/database/src/embedded-template`, ignored by git), where a service started from the
 * TypeScript sources looks for it, as the built one finds `dist/`'s: a test that starts the
 * service or the command line on a new data folder then copies it instead of running initdb
 * (about 20 s). Made once per PGlite version (about 3 s), then kept.
 */
import { createEmbeddedTemplate, EMBEDDED_TEMPLATE_DIR } from '../../libs/database/src/embedded-template';

export async function ensureSourceTemplate(): Promise<void> {
  await createEmbeddedTemplate(EMBEDDED_TEMPLATE_DIR);
}

if (require.main === module) {
  ensureSourceTemplate().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
