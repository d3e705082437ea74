#!/usr/bin/env bash
# HTTP throughput/latency benchmark: a raw Bun.serve JSON endpoint (the baseline) against
# Colony's discovery, authenticated read and token-minting endpoints, all in one run.
#
#   bash bench/run.sh                 # defaults: 32 connections, 2 threads, 3 s warm-up, 10 s runs
#   DURATION=20s ROUNDS=3 bash bench/run.sh
#   ONLY=users/me PROFILE=1 bash bench/run.sh   # one endpoint (plus the baseline), CPU profile of Colony
#
# Only 127.0.0.1 is ever targeted. Every wrk run is bounded by -d (and by `timeout` as a
# safety net); both servers are stopped on exit. Client and server share the machine's cores,
# so numbers are comparable between endpoints of one run, not across machines.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults
PROFILE="${PROFILE:-0}" # 1: run Colony under `bun --cpu-prof` (slower; profile written to OUT_DIR/profile on exit)
RAW_PORT="${RAW_PORT:-18090}"
COLONY_PORT="${COLONY_PORT:-18091}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-bench.XXXXXX)}"

require_tools wrk bun curl
require_free_ports "$RAW_PORT" "$COLONY_PORT"

with_data_dir bench
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2

BENCH_RAW_PORT="$RAW_PORT" bun "$BENCH_DIR/raw-server.ts" >"$OUT_DIR/raw.log" 2>&1 &
EXTRA_PID=$!
start_colony 100
RAW="http://$HOST:$RAW_PORT"
wait_ready "$RAW/" "$EXTRA_PID" raw

register_agent
# Sanity: the token works before we measure anything with it.
curl -fsS -o /dev/null -H "Authorization: Bearer $TOKEN" "$COLONY/api/v1/users/me"

run_facts src

# name|url|script|token
TARGETS=(
  "raw Bun.serve JSON|$RAW/|get.lua|"
  "GET /api/v1 (discovery, no auth)|$COLONY/api/v1|get.lua|"
  "GET /api/v1/users/me (bearer)|$COLONY/api/v1/users/me|get.lua|$TOKEN"
  "POST /api/v1/auth/token|$COLONY/api/v1/auth/token|token.lua|"
)

RESULTS="$OUT_DIR/results.tsv"
KEEP_BASELINE=1 measure_targets

# Markdown report: medians over rounds (one round: the values themselves).
{
  echo "### Colony HTTP benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind), read cache ${COLONY_READ_CACHE_BYTES:-default}"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and the server share them)"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per endpoint, $ROUNDS round(s) (median shown)"
  echo "- load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS"
  if [[ "$PROFILE" == 1 ]]; then
    echo
    echo "Colony ran under the CPU profiler: its numbers are lower than usual. Profile: $OUT_DIR/profile/ (written when the server stops)."
  fi
} | tee "$OUT_DIR/report.md"
