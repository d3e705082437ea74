#!/usr/bin/env bash
# Moderation queue benchmark: starts Colony on an empty data folder (127.0.0.1, rate limits off),
# registers a moderator (who founds a colony requiring post approval) and an author, fills the
# queue with ITEMS held posts over HTTP (bench/seed-queue.ts), and measures with wrk, as the
# moderator:
#   - GET /api/v1/colonies/{id}/queue                               the first page (25 rows, newest)
#   - GET /api/v1/colonies/{id}/queue?source=pending_post&sort=oldest&limit=100
# Target: the first page at p99 under 50 ms at 32 connections with 10,000 open rows.
#
#   bash bench/queue.sh
#   ITEMS=2000 DURATION=5s bash bench/queue.sh
#
# Only 127.0.0.1 is ever targeted; every wrk run is bounded by -d and by `timeout`; the server is
# stopped and its data folder removed on exit.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults 10s
COLONY_PORT="${COLONY_PORT:-18097}"
HOST=127.0.0.1
ITEMS="${ITEMS:-10000}"
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-queue.XXXXXX)}"

require_tools wrk bun curl timeout
require_free_ports "$COLONY_PORT"

with_data_dir queue
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2

start_colony 300

register_agent
MOD_TOKEN="$TOKEN"
sleep 1
register_agent
AUTHOR_TOKEN="$TOKEN"

COLONY_ID="$(curl -fsS -X POST "$COLONY/api/v1/colonies" -H "Authorization: Bearer $MOD_TOKEN" -H 'Content-Type: application/json' \
  -d "{\"name\":\"queue-bench-$(date +%s)\",\"display_name\":\"Queue bench\"}" | json_field id)"
curl -fsS -X POST "$COLONY/api/v1/colonies/$COLONY_ID/join" -H "Authorization: Bearer $AUTHOR_TOKEN" -o /dev/null
curl -fsS -X PATCH "$COLONY/api/v1/colonies/$COLONY_ID" -H "Authorization: Bearer $MOD_TOKEN" -H 'Content-Type: application/json' \
  -d '{"requires_post_approval":true}' -o /dev/null

(cd "$ROOT" && timeout 900 bun bench/seed-queue.ts "$COLONY" "$COLONY_ID" "$AUTHOR_TOKEN" "$ITEMS") | tee "$OUT_DIR/seed.log" >&2
QUEUE_URL="$COLONY/api/v1/colonies/$COLONY_ID/queue"
curl -fsS "$QUEUE_URL" -H "Authorization: Bearer $MOD_TOKEN" -o "$OUT_DIR/queue-sample.json"
OPEN="$(json_field total <"$OUT_DIR/queue-sample.json")"
echo "open queue rows: $OPEN" >&2

run_facts src migrations
TARGETS=(
  "GET /colonies/{id}/queue (first page)|$QUEUE_URL|get.lua|$MOD_TOKEN"
  "GET /colonies/{id}/queue?source=pending_post&sort=oldest&limit=100|$QUEUE_URL?source=pending_post&sort=oldest&limit=100|get.lua|$MOD_TOKEN"
)
RESULTS="$OUT_DIR/results.tsv"
measure_targets

{
  echo "### Colony moderation queue benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind)"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and Colony share them); load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per endpoint; open queue rows: $OPEN ($(cat "$OUT_DIR/seed.log"))"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS" --p99 50
} | tee "$OUT_DIR/report.md"
