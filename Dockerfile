# syntax=docker/dockerfile:1
# Agent Gateway: build with the full toolchain, run with production dependencies only, as a
# non-root user. `docker compose up` runs it with PostgreSQL (docker-compose.yml).

ARG NODE_IMAGE=node:22-bookworm-slim

# 1. Compile the TypeScript monorepo (`nest build`: tsc with the @app/* paths rewritten, the data files
#    copied), then make the embedded database's template, with every dependency installed.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts/embedded-template.js ./scripts/
COPY apps ./apps
COPY libs ./libs
RUN npm run build

# 2. Production dependencies only (no compiler, Jest, swc, test clients).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. The runtime image: compiled output + production node_modules, running as `node`.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
# DATA_DIR is the only writable place (the embedded database when DATABASE_URL is unset).
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
