#!/usr/bin/env bash
# Resident memory of Colony under load: starts Colony on a copy of a forum data folder seeded by
# bench/seed-forum.ts, records its VmRSS idle, then runs wrk against the authenticated read, token
# minting, the hot list of 100 posts, a search matching about 1,000 posts, and the read-cache flood
# (the hot list with a query parameter no two requests share), recording Colony's VmRSS before,
# at its peak during (sampled every 0.2 s), at the end of and RSS_SETTLE (2) seconds after each
# run, its VmHWM, and its VmRSS SETTLE (15) seconds after the last run.
#
#   FORUM_DATA=/tmp/forum-seed bash bench/memory.sh                # from source
#   FORUM_DATA=/tmp/forum-seed BINARY=dist/colony bash bench/memory.sh
#   COLONY_READ_CACHE_BYTES=0 BINARY=dist/colony bash bench/memory.sh
#
# Settings as run.sh (DURATION 10s, WARMUP 3s, ROUNDS, ONLY, CONNECTIONS, THREADS, OUT_DIR),
# plus FORUM_DATA (/tmp/forum-seed; copied, never changed), BINARY, RSS_SETTLE, SETTLE and
# COLONY_PORT (18096). Only 127.0.0.1 is targeted; the server is stopped and the copy removed on
# exit.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults
COLONY_PORT="${COLONY_PORT:-18096}"
FORUM_DATA="${FORUM_DATA:-/tmp/forum-seed}"
SETTLE="${SETTLE:-15}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-memory.XXXXXX)}"

require_tools wrk bun curl timeout
require_free_ports "$COLONY_PORT"
if [[ ! -f "$FORUM_DATA/colony.db" ]]; then
  echo "FORUM_DATA=$FORUM_DATA holds no colony.db (seed one with: bun bench/seed-forum.ts <dir>)" >&2
  exit 1
fi

with_data_dir memory
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2
echo "copying $FORUM_DATA" >&2
cp -a "$FORUM_DATA/." "$DATA_DIR/"

start_colony 1200
sleep 2
RSS_IDLE="$(rss_mib "$COLONY_PID" | cut -f1)"
echo "colony idle: VmRSS $RSS_IDLE MiB" >&2

TERMS_JSON="$(timeout 120 bun "$BENCH_DIR/pick-terms.ts" "$DATA_DIR/colony.db" 1000 0.1)"
TERM="$(bun -e 'console.log(JSON.parse(process.argv[1]).narrow.term)' "$TERMS_JSON")"
TERM_Q="${TERM// /%20}"
POSTS="$(bun -e 'console.log(JSON.parse(process.argv[1]).posts)' "$TERMS_JSON")"

register_agent
curl -fsS -o /dev/null -H "Authorization: Bearer $TOKEN" "$COLONY/api/v1/users/me"
curl -fsS -o /dev/null "$COLONY/api/v1/search?q=$TERM_Q"
run_facts src

# name|url|wrk script|token
TARGETS=(
  "GET /api/v1/users/me (bearer)|$COLONY/api/v1/users/me|get.lua|$TOKEN"
  "POST /api/v1/auth/token|$COLONY/api/v1/auth/token|token.lua|"
  "GET /posts?sort=hot&limit=100 (anonymous)|$COLONY/api/v1/posts?sort=hot&limit=100|get.lua|"
  "GET /search?q=$TERM_Q (anonymous)|$COLONY/api/v1/search?q=$TERM_Q|get.lua|"
  "GET /posts?sort=hot&limit=100&x=<unique> (read-cache flood)|$COLONY/api/v1/posts?sort=hot&limit=100|unique.lua|"
)
RESULTS="$OUT_DIR/results.tsv"
measure_targets
sleep "$SETTLE"
RSS_FINAL="$(rss_mib "$COLONY_PID")"

{
  echo "### Colony resident memory under load — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind), read cache ${COLONY_READ_CACHE_BYTES:-default}"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and the server share them); load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo "- data: copy of $FORUM_DATA ($POSTS posts); search term \"$TERM\""
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per endpoint, $ROUNDS round(s) (median shown)"
  echo "- VmRSS idle (2 s after start): $RSS_IDLE MiB; $SETTLE s after the last run: $(cut -f1 <<<"$RSS_FINAL") MiB; VmHWM $(cut -f2 <<<"$RSS_FINAL") MiB"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS" --plain
} | tee "$OUT_DIR/report.md"
