#!/usr/bin/env node
/**
 * Checks that no layer of an image holds any part of a CA bundle given to its build as a secret:
 * `podman save` writes the image, every layer the image adds over its base is unpacked, and each
 * one is searched for every base64 line of every certificate in the bundle (a PEM certificate's
 * 64-character lines are unique to it). The base's own layers are skipped: they were made without
 * the secret, and the `node` binary there embeds the public root CAs.
 *   node scripts/container/check-secret.js IMAGE BUNDLE [BASE]
 * BASE `-`: every layer is searched (searching the stand-in base itself for the system's bundle
 * finds the roots the `node` binary embeds: the check's own proof that it finds what is there).
 */
const { execFileSync, spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync, createReadStream } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const [image, bundle, base = 'localhost/node:22-bookworm-slim'] = process.argv.slice(2);
if (!image || !bundle) {
  process.stderr.write('usage: check-secret.js IMAGE BUNDLE [BASE]\n');
  process.exit(2);
}
const podman = (args, opts = {}) =>
  execFileSync('podman', ['--runtime', 'runc', '--storage-driver', 'vfs', ...args], {
    env: { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF || join(__dirname, 'containers.conf') },
    maxBuffer: 1 << 26,
    ...opts,
  }).toString();

const sha256File = (file) =>
  new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file).on('data', (d) => hash.update(d)).on('end', () => resolve(hash.digest('hex'))).on('error', reject);
  });

async function main() {
  const lines = [
    ...new Set(
      readFileSync(bundle, 'utf8')
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => /^[A-Za-z0-9+/]{64}$/.test(l)),
    ),
  ];
  if (lines.length === 0) throw new Error(`${bundle} holds no PEM certificate`);
  const work = mkdtempSync(join(tmpdir(), 'ag-secret-check-'));
  try {
    const patterns = join(work, 'patterns');
    writeFileSync(patterns, lines.join('\n') + '\n');
    const baseLayers =
      base === '-' ? new Set() : new Set(JSON.parse(podman(['image', 'inspect', '--format', '{{json .RootFS.Layers}}', base])).map((d) => d.replace(/^sha256:/, '')));
    const archive = join(work, 'image.tar');
    podman(['save', '-q', '--format', 'docker-archive', '-o', archive, image]);
    const saved = join(work, 'saved');
    mkdirSync(saved);
    execFileSync('tar', ['-xf', archive, '-C', saved]);
    rmSync(archive);
    const manifest = JSON.parse(readFileSync(join(saved, 'manifest.json'), 'utf8'))[0];
    let searched = 0;
    for (const [i, layer] of manifest.Layers.entries()) {
      const file = join(saved, layer);
      const digest = await sha256File(file);
      if (baseLayers.has(digest)) continue;
      const dir = join(work, `layer-${i}`);
      mkdirSync(dir);
      execFileSync('tar', ['-xf', file, '-C', dir, '--no-same-owner', '--no-same-permissions']);
      rmSync(file);
      const grep = spawnSync('grep', ['-rlF', '-f', patterns, dir], { maxBuffer: 1 << 24 });
      if (grep.status === 0) {
        process.stderr.write(`layer ${digest.slice(0, 12)} of ${image} holds part of ${bundle}:\n${grep.stdout.toString().split(dir).join('')}`);
        process.exit(1);
      }
      if (grep.status !== 1) throw new Error(`grep failed: ${grep.stderr}`);
      rmSync(dir, { recursive: true, force: true });
      searched += 1;
    }
    // The base layers aside, the image must add at least one layer for the search to mean anything.
    if (searched === 0) throw new Error(`${image} adds no layer over ${base}`);
    process.stdout.write(`no layer of ${image} holds the build secret (${searched} layers over the base searched for ${lines.length} certificate lines)\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
