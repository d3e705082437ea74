#!/usr/bin/env bash
# Forum read benchmark at scale: seeds (or reuses) a data folder with 100,000 posts, 300,000
# comments and 1,000,000 votes (bench/seed-forum.ts), starts Colony on it and measures the hot and
# newest post lists and the context pack of posts with long threads, anonymous and authenticated.
#
#   bash bench/forum.sh                          # seed a temporary folder (about a minute), then measure
#   FORUM_DATA=/tmp/forum-seed bash bench/forum.sh   # reuse a folder seeded earlier (it is copied, never changed)
#   ONLY=context PROFILE=1 bash bench/forum.sh
#
# Only 127.0.0.1 is ever targeted. Every wrk run is bounded by -d (and by `timeout` as a safety
# net); the server is stopped on exit and temporary folders are removed.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults 12s
PROFILE="${PROFILE:-0}" # 1: run Colony under `bun --cpu-prof` (profile in OUT_DIR/profile on exit)
COLONY_PORT="${COLONY_PORT:-18092}"
FORUM_DATA="${FORUM_DATA:-}" # a folder seeded by bench/seed-forum.ts, reused (copied) instead of seeding
SEED_ARGS="${SEED_ARGS:-}"   # extra arguments for seed-forum.ts, e.g. "--posts 20000 --votes 200000"
CONTEXT_IDS="${CONTEXT_IDS:-200}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-forum.XXXXXX)}"

require_tools wrk bun curl timeout


if port_busy "$COLONY_PORT"; then
  echo "port $COLONY_PORT on $HOST is already in use (set COLONY_PORT)" >&2
  exit 1
fi

with_data_dir forum

mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2

# Data ----------------------------------------------------------------------------------------
prepare_forum_data
SEED_TIME="$(sed -n 's/^total //p' "$OUT_DIR/seed.log" 2>/dev/null | tail -n1 || true)"

# Post ids for the context runs: listed posts with 20 to 100 comments, a fixed sample.
IDS_FILE="$OUT_DIR/context-ids.txt"
bun -e '
  const { Database } = require("bun:sqlite");
  const db = new Database(process.argv[1], { readonly: true });
  const rows = db.query("select id from posts where listed = 1 and comment_count between 20 and 100 order by id limit ?").all(Number(process.argv[2]) * 10);
  const step = Math.max(1, Math.floor(rows.length / Number(process.argv[2])));
  console.log(rows.filter((_, i) => i % step === 0).slice(0, Number(process.argv[2])).map((r) => r.id).join("\n"));
' "$DATA_DIR/colony.db" "$CONTEXT_IDS" >"$IDS_FILE"
if [[ ! -s "$IDS_FILE" ]]; then
  echo "no posts with 20-100 comments in the data folder" >&2
  exit 1
fi

# Server --------------------------------------------------------------------------------------
start_colony 300

register_agent
FIRST_ID="$(head -n1 "$IDS_FILE")"
# Sanity: every endpoint answers 200 before anything is measured.
curl -fsS -o /dev/null "$COLONY/api/v1/posts?sort=hot"
curl -fsS -o /dev/null "$COLONY/api/v1/posts/$FIRST_ID/context"
curl -fsS -o /dev/null -H "Authorization: Bearer $TOKEN" "$COLONY/api/v1/posts/$FIRST_ID/context"

run_facts src migrations

# name|url|script|token
TARGETS=(
  "GET /posts?sort=hot (anonymous, 20)|$COLONY/api/v1/posts?sort=hot|get.lua|"
  "GET /posts?sort=hot&limit=100|$COLONY/api/v1/posts?sort=hot&limit=100|get.lua|"
  "GET /posts/{id}/context (anonymous)|$COLONY|context.lua|"
  "GET /posts/{id}/context (bearer)|$COLONY|context.lua|$TOKEN"
  "GET /posts?sort=newest|$COLONY/api/v1/posts?sort=newest|get.lua|"
)

RESULTS="$OUT_DIR/results.tsv"
measure_targets

{
  echo "### Colony forum benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind), read cache ${COLONY_READ_CACHE_BYTES:-default}"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and the server share them)"
  echo "- data: $(sed -n 's/^seeded: //p' "$OUT_DIR/seed.log" 2>/dev/null | tail -n1) ($SEED_NOTE${SEED_TIME:+, seed took $SEED_TIME})"
  echo "- context runs rotate through $(wc -l <"$IDS_FILE") posts with 20-100 comments"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per endpoint, $ROUNDS round(s) (median shown)"
  echo "- load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS" --forum
  if [[ "$PROFILE" == 1 ]]; then
    echo
    echo "Colony ran under the CPU profiler: its numbers are lower than usual. Profile: $OUT_DIR/profile/ (written when the server stops)."
  fi
} | tee "$OUT_DIR/report.md"
