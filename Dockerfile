# syntax=docker/dockerfile:1
# One image for every role (DESIGN.md s3). `docker/entrypoint.sh` runs the
# role(s) named by NOETL_ROLES, or the `noetl` CLI with the arguments given
# (`migrate up` for the migration Job). Build: `docker build -t noetl-runtime .`
#
# `npm install`, not `npm ci`, as in the README: the lockfile is written against
# a registry that serves only one platform's optional binaries, and `npm ci`
# refuses a lockfile that does not list the others. `npm install` installs the
# versions the lockfile pins.

ARG NODE_IMAGE=node:20-bookworm-slim

# Every dependency, then `npm run build` (the circular-import check, tsc and
# the web UI's Vite build into dist/ui).
# --ignore-scripts: the root `prepare` (= build) needs the sources copied after
# this layer, and compiling needs no dependency's install script.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json .madgerc ./
COPY apps ./apps
COPY libs ./libs
COPY migrations ./migrations
COPY web ./web
RUN npm run build

# Production dependencies only. --omit=optional leaves out the embedded
# PostgreSQL binaries (about 100 MB): a container is always given DATABASE_URL,
# and without it the runtime says to set it.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --omit=dev --omit=optional --ignore-scripts \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# python3 runs `kind: python` steps (standard library only: extend this image
# for packages); tini is PID 1, forwards SIGTERM to node and reaps the
# subprocesses that python steps leave behind.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/apps ./dist/apps
COPY --from=build /app/dist/libs ./dist/libs
COPY --from=build /app/dist/migrations ./dist/migrations
# The web UI, served by the api role at /ui/.
COPY --from=build /app/dist/ui ./dist/ui
COPY --chmod=0755 docker/entrypoint.sh ./docker/entrypoint.sh
# NOETL_HOME: where a deployment without a secret store keeps its admin and
# worker keys (the compose `keys` volume); the user's own, so that a volume
# mounted there is writable by it. Nothing else is written: the ledger and
# payloads live in PostgreSQL.
RUN install -d -o 1000 -g 1000 -m 0700 /var/lib/noetl
ENV NOETL_HOME=/var/lib/noetl
# The base image's `node` user, by number so that Kubernetes can verify
# runAsNonRoot.
USER 1000:1000
EXPOSE 8082
# Liveness on PORT; every role serves /health/live there (the api with the REST
# API, the others from their probe server).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8082) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "/app/docker/entrypoint.sh"]
