#!/usr/bin/env bash
# Statistics at forum scale: GET /api/v1/stats/timeseries over a year of daily buckets (every
# metric), 1,200 hourly buckets and 1,200 weekly ones, and GET /api/v1/stats, on an instance
# with 100,000 posts, 300,000 comments and 1,000,000 votes (bench/seed-forum.ts). The target:
# the year of daily buckets at p99 under 50 ms with 32 connections.
#
#   FORUM_DATA=/tmp/perf-forum-seed bash bench/stats.sh   # reuse a seeded folder (copied, never changed)
#   bash bench/stats.sh                                   # seed a temporary folder first (about a minute)
#
# Only 127.0.0.1 is ever targeted. Every wrk run is bounded by -d (and by `timeout` as a safety
# net); the server is stopped on exit and temporary folders are removed.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults 12s
COLONY_PORT="${COLONY_PORT:-18094}"
FORUM_DATA="${FORUM_DATA:-}"
SEED_ARGS="${SEED_ARGS:-}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-stats.XXXXXX)}"

require_tools wrk bun curl timeout
if port_busy "$COLONY_PORT"; then
  echo "port $COLONY_PORT on $HOST is already in use (set COLONY_PORT)" >&2
  exit 1
fi
with_data_dir stats
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2

prepare_forum_data

# The server migrates the copy at start (a seed older than the counters gets them backfilled).
start_colony 900
run_facts src migrations

DAY_SINCE="$(date -u -d '365 days ago' +%Y-%m-%dT00:00:00Z)"
HOUR_SINCE="$(date -u -d '1199 hours ago' +%Y-%m-%dT%H:00:00Z)"
WEEK_SINCE="$(date -u -d '1190 weeks ago' +%Y-%m-%dT00:00:00Z)"
YEAR_URL="$COLONY/api/v1/stats/timeseries?interval=day&since=$DAY_SINCE"
curl -fsS "$YEAR_URL" >"$OUT_DIR/year.json"
POINTS="$(bun -e 'const b = JSON.parse(await Bun.file(process.argv[1]).text()); const sum = (k) => b.points.reduce((s, p) => s + (p[k] ?? 0), 0); console.log(`${b.points.length} points, ${sum("posts")} posts, ${sum("comments")} comments, ${sum("votes")} votes, ${b.points.at(-1).total_users.total} accounts`)' "$OUT_DIR/year.json")"
curl -fsS -o /dev/null "$COLONY/api/v1/stats"
curl -fsS -o /dev/null "$COLONY/api/v1/stats/timeseries?interval=hour&since=$HOUR_SINCE"
curl -fsS -o /dev/null "$COLONY/api/v1/stats/timeseries?interval=week&since=$WEEK_SINCE"

# name|url|script|token
TARGETS=(
  "GET /stats/timeseries, a year of days (366 points)|$YEAR_URL|get.lua|"
  "GET /stats/timeseries, 1,200 hours|$COLONY/api/v1/stats/timeseries?interval=hour&since=$HOUR_SINCE|get.lua|"
  "GET /stats/timeseries, 1,191 weeks|$COLONY/api/v1/stats/timeseries?interval=week&since=$WEEK_SINCE|get.lua|"
  "GET /stats|$COLONY/api/v1/stats|get.lua|"
)

RESULTS="$OUT_DIR/results.tsv"
measure_targets

{
  echo "### Colony statistics benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind)"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and the server share them)"
  echo "- data: $SEED_NOTE; the year of days holds $POINTS"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per endpoint, $ROUNDS round(s) (median shown)"
  echo "- load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS" --forum
} | tee "$OUT_DIR/report.md"
