#!/usr/bin/env bash
# Runs Colony under Litestream: restores the database from the replica when this machine has
# none (a fresh volume or a replaced host), then starts `colony serve` as Litestream's child
# process so that every committed write is streamed to the replica.
#
# Environment:
#   COLONY_DATA_DIR     data folder holding colony.db (default: /data)
#   LITESTREAM_CONFIG   Litestream configuration (default: /etc/litestream.yml)
#   COLONY_BIN          the Colony executable (default: colony, looked up on PATH)
#   plus whatever the configuration references (see litestream.yml next to this script).
set -euo pipefail

export COLONY_DATA_DIR="${COLONY_DATA_DIR:-/data}"
config="${LITESTREAM_CONFIG:-/etc/litestream.yml}"
colony="${COLONY_BIN:-colony}"
db="${COLONY_DATA_DIR}/colony.db"

log() { printf 'litestream/run.sh: %s\n' "$*" >&2; }

command -v litestream >/dev/null 2>&1 || { log "litestream is not installed (https://litestream.io/install/)"; exit 1; }
command -v "$colony" >/dev/null 2>&1 || { log "cannot find the Colony executable \"$colony\" (set COLONY_BIN)"; exit 1; }
[[ -r "$config" ]] || { log "cannot read the Litestream configuration $config (set LITESTREAM_CONFIG)"; exit 1; }
[[ "$colony" != *[[:space:]]* ]] || { log "COLONY_BIN must not contain spaces: $colony"; exit 1; }

mkdir -p "$COLONY_DATA_DIR"

if [[ ! -e "$db" ]]; then
  log "no database at $db; restoring it from the replica if one exists"
  # Both flags make this a no-op on a first deployment (no replica yet) and on a race with an
  # existing database; any other failure (credentials, network) stops the start-up here.
  litestream restore -config "$config" -if-db-not-exists -if-replica-exists "$db"
  if [[ -e "$db" ]]; then
    log "restored $db"
  else
    log "no replica yet; Colony will create a new database"
  fi
fi

# Litestream forwards SIGTERM/SIGINT to Colony, waits for it to exit, then flushes the last
# changes to the replica and exits with Colony's status.
exec litestream replicate -config "$config" -exec "$colony serve"
