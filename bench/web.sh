#!/usr/bin/env bash
# Web pages at scale: on the seeded 100,000-post instance (bench/seed-forum.ts), the post page of a
# post with 200 comments (bench/web-thread.ts brings the busiest post to 200 through the API),
# fetched as a browser does (HTML, gzip accepted), anonymously and as a signed-in person
# (bench/web-session.ts signs one up), with the read cache on (the anonymous page cache and the
# shared comment list) and off (every request renders). Also records what the page weighs: HTML,
# CSS and JS, as sent (gzip) and unpacked.
#
#   bash bench/web.sh                                 # seed a temporary folder (about a minute), then measure
#   FORUM_DATA=/tmp/perf-forum-seed bash bench/web.sh # reuse a folder seeded earlier (it is copied, never changed)
#   BINARY=dist/colony bash bench/web.sh              # the executable instead of the sources
#
# Only 127.0.0.1 is ever targeted. Every wrk run is bounded by -d (and by `timeout` as a safety
# net); the server is stopped on exit and temporary folders are removed.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults 12s
COLONY_PORT="${COLONY_PORT:-18093}"
FORUM_DATA="${FORUM_DATA:-}"
SEED_ARGS="${SEED_ARGS:-}"
COMMENTS="${COMMENTS:-200}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-web.XXXXXX)}"

require_tools wrk bun curl timeout gzip

if port_busy "$COLONY_PORT"; then
  echo "port $COLONY_PORT on $HOST is already in use (set COLONY_PORT)" >&2
  exit 1
fi

with_data_dir web
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2
prepare_forum_data

# The thread, and a signed-in reader ------------------------------------------------------------
export COLONY_REGISTRATION=open
start_colony 300
POST_ID="$(cd "$ROOT" && bun "$BENCH_DIR/web-thread.ts" "$COLONY" "$DATA_DIR/colony.db" "$COMMENTS")"
PAGE="$COLONY/post/$POST_ID"
curl -fsS -o /dev/null -H 'Accept: text/html' "$PAGE"
SESSION_COOKIE="$(cd "$ROOT" && bun "$BENCH_DIR/web-session.ts" "$COLONY")"
run_facts src migrations

# What the page weighs: bytes as sent (gzip) and unpacked, for the page and the assets it links,
# anonymously and signed in (whose pages also load the live-updates script).
weigh() { # prefix, cookie: sets <prefix>_RAW, <prefix>_GZ (HTML) and <prefix>_ASSETS_RAW, <prefix>_ASSETS_GZ
  local html="$OUT_DIR/page-$1.html" raw gz araw=0 agz=0 asset
  curl -fsS -H 'Accept: text/html' -H "Cookie: $2" "$PAGE" >"$html"
  raw=$(wc -c <"$html")
  gz=$(curl -fsS -H 'Accept: text/html' -H 'Accept-Encoding: gzip' -H "Cookie: $2" "$PAGE" | wc -c)
  for asset in $(grep -oE '/assets/(site|live)\.[0-9a-z]+\.(css|js)' "$html" | sort -u); do
    araw=$((araw + $(curl -fsS "$COLONY$asset" | wc -c)))
    agz=$((agz + $(curl -fsS -H 'Accept-Encoding: gzip' "$COLONY$asset" | wc -c)))
  done
  printf -v "$1_RAW" %s "$raw"; printf -v "$1_GZ" %s "$gz"; printf -v "$1_ASSETS_RAW" %s "$araw"; printf -v "$1_ASSETS_GZ" %s "$agz"
}
weigh ANON ""
weigh SIGNED "$SESSION_COOKIE"
SHOWN=$(grep -o '<article class="c' "$OUT_DIR/page-ANON.html" | wc -l)

# Anonymous, then signed in (the session's cookie in every request: page.lua reads COOKIE).
measure_page() { # label, cookie, results file
  TARGETS=("GET /post/{id}, $COMMENTS comments, $1|$PAGE|page.lua|")
  RESULTS="$3"
  COOKIE="$2" measure_targets
}
ALL="$OUT_DIR/results-all.tsv"
measure_page "anonymous, read cache on" "" "$OUT_DIR/results-anon-on.tsv"
cp "$RESULTS" "$ALL"
measure_page "signed in, read cache on" "$SESSION_COOKIE" "$OUT_DIR/results-signed-on.tsv"
tail -n +2 "$RESULTS" >>"$ALL"

# Every request renders: the same server with its read cache off.
stop_pid "$COLONY_PID"
COLONY_READ_CACHE_BYTES=0 start_colony 300
measure_page "anonymous, read cache off" "" "$OUT_DIR/results-anon-off.tsv"
tail -n +2 "$RESULTS" >>"$ALL"
measure_page "signed in, read cache off" "$SESSION_COOKIE" "$OUT_DIR/results-signed-off.tsv"
tail -n +2 "$RESULTS" >>"$ALL"
RESULTS="$ALL"

{
  echo "### Colony web pages — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind)"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and the server share them)"
  echo "- data: $(sed -n 's/^seeded: //p' "$OUT_DIR/seed.log" 2>/dev/null | tail -n1) ($SEED_NOTE)"
  echo "- the page: post $POST_ID, $COMMENTS comments ($SHOWN on the page itself; deeper replies continue on thread pages)"
  echo "- weight as sent (gzip), anonymous: HTML $ANON_GZ B + CSS and JS $ANON_ASSETS_GZ B = $((ANON_GZ + ANON_ASSETS_GZ)) B; unpacked: HTML $ANON_RAW B + CSS and JS $ANON_ASSETS_RAW B"
  echo "- signed in: HTML $SIGNED_GZ B + CSS and JS $SIGNED_ASSETS_GZ B = $((SIGNED_GZ + SIGNED_ASSETS_GZ)) B; unpacked: HTML $SIGNED_RAW B + CSS and JS $SIGNED_ASSETS_RAW B"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per run, $ROUNDS round(s) (median shown), Accept-Encoding: gzip"
  echo "- load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS" --forum
} | tee "$OUT_DIR/report.md"
