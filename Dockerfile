# syntax=docker/dockerfile:1
# Agent Gateway: build with the full toolchain, run with production dependencies only, as a
# non-root user, on a read-only root filesystem (only DATA_DIR and /tmp written).
# `docker compose up` runs it with PostgreSQL (docker-compose.yml); CI builds and runs it with podman
# (scripts/container/build.sh, docs/operations.md "The container image").
#
# Behind a TLS-inspecting proxy, give npm the proxy's CA as a build secret (never stored in a layer):
#   docker build --secret id=ca,src=/path/to/ca-bundle.pem .

ARG NODE_IMAGE=node:22-bookworm-slim

# 1. Compile the TypeScript monorepo (`nest build`: tsc with the @app/* paths rewritten, the data files
#    copied), make the embedded database's template (readable by the runtime user, who copies it into
#    a new DATA_DIR), then drop the development dependencies (compiler, Jest, swc, test clients) and
#    the source maps and docs the packages ship (about 80 MB that the runtime never reads).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    npm ci --no-audit --no-fund --prefer-offline
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts/embedded-template.js ./scripts/
COPY apps ./apps
COPY libs ./libs
RUN npm run build \
 && chmod -R a+rX dist \
 && npm prune --omit=dev --no-audit --no-fund \
 && find node_modules -type f \( -name '*.map' -o -name '*.md' \) -delete

# 2. The runtime image: compiled output + production node_modules, owned by root, running as `node`.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
# DATA_DIR is the only writable place the service needs (the embedded database when DATABASE_URL is
# unset); /tmp is the other one a read-only root filesystem must leave writable.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
# Readiness: unhealthy while the database does not answer or the process is shutting down
# (docs/operations.md, "Health and readiness").
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# node directly (not npm) so SIGTERM reaches the process and shutdown closes HTTP and the pool.
CMD ["node", "dist/apps/gateway/src/main.js"]
