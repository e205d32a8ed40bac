#!/usr/bin/env bash
# Builds the project's image with podman on the stand-in base (base.sh), then checks that no layer
# holds the extra CA bundle given as a build secret.
#   scripts/container/build.sh [IMAGE]     (default localhost/agent-gateway:ci)
# Environment: NODE_IMAGE (default localhost/node:22-bookworm-slim, made by base.sh when it is that
# name), NODE_EXTRA_CA_CERTS (a CA bundle for npm behind a TLS-inspecting proxy, passed as the
# build secret `ca`), NPM_CACHE (the host's npm cache, mounted into the build so npm ci reuses it;
# default `npm config get cache`; NPM_CACHE= to build without it).
set -euo pipefail
. "$(dirname "$0")/podman.sh"
cd "$container_dir/../.."
image="${1:-localhost/agent-gateway:ci}"
base="${NODE_IMAGE:-localhost/node:22-bookworm-slim}"
if [ "$base" = "localhost/node:22-bookworm-slim" ]; then bash "$container_dir/base.sh" "$base"; fi

args=(--network host --format docker --layers=false --build-arg "NODE_IMAGE=$base" --label org.agent-gateway.build=ci -t "$image")
ca="${NODE_EXTRA_CA_CERTS:-}"
# In CI without a bundle of the machine's own, the system's goes in its place, so that the secret
# path and the layer check run on every machine.
if [ -z "$ca" ] && [ "${CI:-}" = "true" ] && [ -s /etc/ssl/certs/ca-certificates.crt ]; then ca=/etc/ssl/certs/ca-certificates.crt; fi
if [ -n "$ca" ] && [ -s "$ca" ]; then args+=(--secret "id=ca,src=$ca"); fi
cache="${NPM_CACHE-$(npm config get cache 2>/dev/null || true)}"
if [ -n "$cache" ] && [ -d "$cache" ]; then args+=(--volume "$cache:/root/.npm"); fi

started=$(date +%s)
pm build "${args[@]}" -f Dockerfile .
echo "image $image built in $(( $(date +%s) - started )) s"
# The image this tag had before is left untagged: with vfs each one holds a full copy, so go.
pm image prune -f --filter label=org.agent-gateway.build=ci >/dev/null || true

if [ -n "$ca" ] && [ -s "$ca" ]; then node "$container_dir/check-secret.js" "$image" "$ca"; fi
pm image inspect --format '{{.Size}}' "$image" "$base" | {
  read -r size; read -r base_size
  echo "image size $((size / 1000000)) MB, $(((size - base_size) / 1000000)) MB over the base $base"
}
