# syntax=docker/dockerfile:1
#
# Colony as a container: one executable, data in /data.
#
#   docker build -t colony .
#   docker run -d -p 8080:8080 -v colony-data:/data \
#     -e COLONY_PUBLIC_URL=https://colony.example.org colony
#   docker run --rm -v colony-data:/data colony doctor
#
# The build stage compiles dist/colony with `bun run build` (sharp runs inside it on its
# WebAssembly build, fetched by the build script from the npm registry). The runtime stage
# holds only that file, plus curl for the health check.

ARG NODE_VERSION=24
ARG DEBIAN_RELEASE=bookworm

# ---------------------------------------------------------------------------------------------
FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS build

# Bun from npm, pinned to the version the lockfile and the build are tested with.
RUN npm install -g bun@1.4.5 && bun --version

WORKDIR /src

# Dependencies first, so that source changes reuse this layer.
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile

COPY . .
# Build, then prove the executable works here: SQLite, migrations, and image conversion
# through sharp's WebAssembly build.
RUN bun run build \
 && ./dist/colony version \
 && COLONY_DATA_DIR="$(mktemp -d)" ./dist/colony doctor

# ---------------------------------------------------------------------------------------------
FROM debian:${DEBIAN_RELEASE}-slim AS runtime

# ca-certificates for outbound TLS (webhooks, identity providers); curl for the health check.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*

RUN groupadd --system --gid 10001 colony \
 && useradd --system --uid 10001 --gid colony --home-dir /data --shell /usr/sbin/nologin colony \
 && mkdir -p /data \
 && chown colony:colony /data \
 && chmod 0700 /data

COPY --from=build --chown=root:root --chmod=0755 /src/dist/colony /usr/local/bin/colony

# Colony always runs as the unprivileged colony user. The container starts as root only to
# make the data folder writable for that user (Fly.io volumes and bind mounts often arrive
# owned by root), then drops to it for good with setpriv. Started with --user, it runs the
# command as that user directly. An argument that is not a program on PATH is a Colony
# subcommand, so `docker run colony doctor` runs `colony doctor`.
COPY --chmod=0755 <<'EOF' /usr/local/bin/docker-entrypoint
#!/bin/sh
set -eu
if ! command -v -- "${1:-}" >/dev/null 2>&1; then
  set -- colony "$@"
fi
if [ "$(id -u)" = 0 ]; then
  dir="${COLONY_DATA_DIR:-/data}"
  mkdir -p "$dir"
  find "$dir" -xdev ! -user colony -exec chown colony:colony {} +
  chmod 0700 "$dir"
  exec setpriv --reuid=colony --regid=colony --init-groups --inh-caps=-all -- "$@"
fi
exec "$@"
EOF

ENV COLONY_DATA_DIR=/data \
    COLONY_HOST=0.0.0.0 \
    COLONY_PORT=8080

# Declared after the chown above, so a fresh named volume starts out owned by colony.
VOLUME /data
WORKDIR /data
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${COLONY_PORT}/health" || exit 1

# Colony handles SIGTERM itself: it stops accepting requests, drains the outbox and
# checkpoints the database before it exits.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/docker-entrypoint"]
CMD ["serve"]
