#!/usr/bin/env bash
# Search and for-you benchmark at scale: starts Colony on a copy of a forum data folder seeded by
# bench/seed-forum.ts (Colony applies pending migrations at start, including the FTS backfill),
# picks a term matching about 1,000 posts and a broad term matching about 10% of the posts, and
# measures GET /api/v1/search (anonymous, bearer, broad term), GET /api/v1/feed/for-you (bearer)
# and the bare FTS5 query behind a raw Bun.serve (bench/fts-raw.ts) on the same copied database.
#
#   FORUM_DATA=/tmp/forum-seed bash bench/search.sh      # the folder is copied, never changed
#   TERM_TARGET=1000 BROAD_SHARE=0.10 DURATION=10s bash bench/search.sh
#   PAIRS=8 PAIR_DURATION=5s bash bench/search.sh   # the alternating bare/search pairs (0: none)
#
# Only 127.0.0.1 is ever targeted. Every wrk run is bounded by -d and by `timeout`; both servers
# are stopped on exit and the copied folder is removed.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults
COLONY_PORT="${COLONY_PORT:-18092}"
FTS_PORT="${FTS_PORT:-18093}"
FORUM_DATA="${FORUM_DATA:-/tmp/forum-seed}"
TERM_TARGET="${TERM_TARGET:-1000}"   # posts the selective term should match
BROAD_SHARE="${BROAD_SHARE:-0.10}"   # share of posts the broad term should match
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-search.XXXXXX)}"

require_tools wrk bun curl timeout
require_free_ports "$COLONY_PORT" "$FTS_PORT"
if [[ ! -f "$FORUM_DATA/colony.db" ]]; then
  echo "FORUM_DATA=$FORUM_DATA holds no colony.db (seed one with: bun bench/seed-forum.ts <dir>)" >&2
  exit 1
fi

with_data_dir search

mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2
echo "copying $FORUM_DATA" >&2
cp -a "$FORUM_DATA/." "$DATA_DIR/"

# Colony (migrates at start: FTS backfill of posts_fts) -----------------------------------------
START_NS=$(date +%s%N)
start_colony 1200
START_S=$(( ($(date +%s%N) - START_NS) / 1000000 ))
echo "colony up after ${START_S} ms (migrations included)" >&2

# Terms: from the FTS vocabulary, verified with the MATCH the service runs ----------------------
TERMS_JSON="$(timeout 120 bun "$BENCH_DIR/pick-terms.ts" "$DATA_DIR/colony.db" "$TERM_TARGET" "$BROAD_SHARE")"
jf() { bun -e 'let v = JSON.parse(process.argv[2]); for (const k of process.argv[1].split(".")) v = v[k]; console.log(v)' "$1" "$TERMS_JSON"; }
TERM="$(jf narrow.term)"; TERM_N="$(jf narrow.n)"; TERM_Q="${TERM// /%20}"
BROAD="$(jf broad.term)"; BROAD_N="$(jf broad.n)"
echo "posts $(jf posts) (listed $(jf listed), in posts_fts $(jf indexed)); term \"$TERM\" matches $TERM_N posts; broad term \"$BROAD\" matches $BROAD_N posts" >&2

# Bare FTS5 baseline on the same copied database (read-only) -----------------------------------
(cd "$ROOT" && exec env BENCH_FTS_PORT="$FTS_PORT" bun "$BENCH_DIR/fts-raw.ts" "$DATA_DIR/colony.db") >"$OUT_DIR/fts-raw.log" 2>&1 &
EXTRA_PID=$!
FTS="http://$HOST:$FTS_PORT"
for _ in $(seq 1 100); do curl -fsS -o /dev/null "$FTS/?q=$TERM_Q" 2>/dev/null && break; sleep 0.1; done
curl -fsS -o /dev/null "$FTS/?q=$TERM_Q"

# Account --------------------------------------------------------------------------------------
register_agent

# Sanity and shape of the answers before anything is measured.
curl -fsS "$COLONY/api/v1/search?q=$TERM_Q" -o "$OUT_DIR/search-sample.json"
curl -fsS "$COLONY/api/v1/search?q=$BROAD" -o "$OUT_DIR/search-broad-sample.json"
curl -fsS -H "Authorization: Bearer $TOKEN" "$COLONY/api/v1/search?q=$TERM_Q" -o /dev/null
SNAP_DB="$DATA_DIR/colony.db"
snapshots() { bun -e 'const { Database } = require("bun:sqlite"); const db = new Database(process.argv[1], { readonly: true }); db.exec("pragma busy_timeout = 5000"); console.log(db.query("select count(*) as n from feed_snapshots").get().n)' "$SNAP_DB"; }
SNAP_BEFORE="$(snapshots)"
for i in 1 2 3 4 5; do
  curl -fsS -H "Authorization: Bearer $TOKEN" "$COLONY/api/v1/feed/for-you" -o "$OUT_DIR/for-you-$i.json"
done
SNAP_AFTER5="$(snapshots)"
FEED_COUNTS="$(for i in 1 2 3 4 5; do bun -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).count)' "$OUT_DIR/for-you-$i.json"; done | paste -sd, -)"
echo "for-you: snapshots $SNAP_BEFORE -> $SNAP_AFTER5 after 5 first-page requests; item counts $FEED_COUNTS" >&2
echo "search total for \"$TERM\": $(bun -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).total)' "$OUT_DIR/search-sample.json"), for \"$BROAD\": $(bun -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).total)' "$OUT_DIR/search-broad-sample.json")" >&2

run_facts src migrations

# name|url|wrk script|token  (the first row is the baseline of the ratio column)
TARGETS=(
  "bare FTS5 query (fts-raw.ts, \"$TERM\")|$FTS/?q=$TERM_Q|get.lua|"
  "GET /search?q=$TERM_Q (anonymous)|$COLONY/api/v1/search?q=$TERM_Q|get.lua|"
  "GET /search?q=$TERM_Q (bearer)|$COLONY/api/v1/search?q=$TERM_Q|get.lua|$TOKEN"
  "bare FTS5 query, every column of the 20 posts (\"$TERM\")|$FTS/?q=$TERM_Q&full=1|get.lua|"
  "GET /search?q=$TERM_Q (anonymous, again)|$COLONY/api/v1/search?q=$TERM_Q|get.lua|"
  "bare FTS5 query (fts-raw.ts, \"$BROAD\")|$FTS/?q=$BROAD|get.lua|"
  "GET /search?q=$BROAD (broad, anonymous)|$COLONY/api/v1/search?q=$BROAD|get.lua|"
  "GET /feed/for-you (bearer)|$COLONY/api/v1/feed/for-you|get.lua|$TOKEN"
)
RESULTS="$OUT_DIR/results.tsv"
measure_targets
# Then the bare query and the anonymous search alternately, seconds apart (see measure_pairs).
PAIRS="${PAIRS:-8}"
PAIR_DURATION="${PAIR_DURATION:-5s}"
PAIRS_TSV="$OUT_DIR/pairs.tsv"
if [[ "$PAIRS" -gt 0 && -z "${ONLY:-}" ]]; then measure_pairs "$PAIRS_TSV" "${TARGETS[0]}" "${TARGETS[1]}"; fi
SNAP_END="$(snapshots)"
FEED_LAST="$(curl -fsS -H "Authorization: Bearer $TOKEN" "$COLONY/api/v1/feed/for-you" | json_field count)"

{
  echo "### Colony search and for-you benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind), read cache ${COLONY_READ_CACHE_BYTES:-default}"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and the servers share them); load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo "- data: copy of $FORUM_DATA, $(jf posts) posts ($(jf listed) listed, $(jf indexed) rows in posts_fts); Colony start-up with migrations ${START_S} ms"
  echo "- term \"$TERM\": $TERM_N matching posts; broad term \"$BROAD\": $BROAD_N matching posts"
  echo "- for-you: feed_snapshots $SNAP_BEFORE before, $SNAP_AFTER5 after 5 first pages, $SNAP_END after the runs; item counts of those 5 pages: $FEED_COUNTS; after the runs: $FEED_LAST"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per endpoint"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS" --p99 100 --vs-bare
  if [[ -s "$PAIRS_TSV" ]]; then
    echo
    echo "Alternating pairs ($PAIRS × $PAIR_DURATION each, after the table's runs):"
    echo
    bun "$BENCH_DIR/summarise.ts" "$PAIRS_TSV" --pairs
  fi
} | tee "$OUT_DIR/report.md"
