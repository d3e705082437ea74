#!/usr/bin/env bash
# Does search starve the instance? Starts Colony on a copy of a forum data folder seeded by
# bench/seed-forum.ts, finds the costliest query the search caps still allow on that data (three
# prefixes of the most postings that each reach at most MAX_PREFIX_WORDS words, and whole words;
# see MAX_QUERY_TERMS in src/features/posts/search.ts), then measures the probe — GET /health, or
# with PROBE=search an ordinary search (PROBE_QUERY, default the word in the most posts) — alone,
# while SEARCH_CONNECTIONS connections send that search back to back, and alone again.
#
#   FORUM_DATA=/tmp/forum-seed bash bench/search-health.sh      # the folder is copied, never changed
#   ROUNDS=3 DURATION=20s HEALTH_DELAY_MS=10 bash bench/search-health.sh
#   PROBE=search FORUM_DATA=/tmp/forum-1500 bash bench/search-health.sh   # an ordinary search beside 16 worst
#   QUERY='a* b* c* d* e*' bash bench/search-health.sh   # this query instead (older code had no caps)
#
# The /health probe is wrk with HEALTH_CONNECTIONS connections, each sending its next request as
# soon as the last is answered (HEALTH_DELAY_MS=0, the harshest probe) or HEALTH_DELAY_MS after it.
# Only 127.0.0.1 is ever targeted; every wrk run is bounded by -d and by `timeout`; the server is
# stopped on exit and the copied folder removed.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

WARMUP="${WARMUP:-5s}" # searches running before /health is measured
bench_defaults 20s
COLONY_PORT="${COLONY_PORT:-18094}"
FORUM_DATA="${FORUM_DATA:-/tmp/forum-seed}"
SEARCH_CONNECTIONS="${SEARCH_CONNECTIONS:-16}"
HEALTH_CONNECTIONS="${HEALTH_CONNECTIONS:-2}"
HEALTH_DELAY_MS="${HEALTH_DELAY_MS:-0}"
SEARCH_LIMIT="${SEARCH_LIMIT:-100}" # page size of the searches (100, the most, is the most work)
QUERY="${QUERY:-}"                 # search this (sort=relevance) instead of the worst candidate
PROBE="${PROBE:-health}"           # health, or search (an ordinary search: PROBE_QUERY)
PROBE_QUERY="${PROBE_QUERY:-}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-search-health.XXXXXX)}"

require_tools wrk bun curl timeout
if port_busy "$COLONY_PORT"; then echo "port $COLONY_PORT on $HOST is already in use" >&2; exit 1; fi
if [[ ! -f "$FORUM_DATA/colony.db" ]]; then
  echo "FORUM_DATA=$FORUM_DATA holds no colony.db (seed one with: bun bench/seed-forum.ts <dir>)" >&2
  exit 1
fi

with_data_dir search-health
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2
echo "copying $FORUM_DATA" >&2
cp -a "$FORUM_DATA/." "$DATA_DIR/"
start_colony 1200

# Candidates for the worst query: built from the index's vocabulary (the one-letter prefixes with
# the most postings, the words in the most posts), each one within the caps.
if [[ -n "$QUERY" ]]; then CANDIDATES="$QUERY"; else CANDIDATES="$(timeout 120 bun -e '
  const { Database } = require("bun:sqlite");
  const db = new Database(process.argv[1], { readonly: true });
  db.exec("pragma busy_timeout = 5000");
  db.exec("create virtual table temp.v using fts5vocab(main, posts_fts, col)");
  const text = "(col = \"title\" or col = \"body\")";
  // Prefixes of one to four letters that reach at most 50 words (MAX_PREFIX_WORDS), most postings first.
  const letters = db.query(`select p as l, sum(cnt) as n, count(distinct term) as w from (select substr(term, 1, k) as p, term, cnt from temp.v, (select 1 as k union all select 2 union all select 3 union all select 4) where ${text} and term glob \"[a-z]*\" and length(term) >= k) group by p having w <= 50 order by n desc limit 3`).all().map((r) => r.l);
  const words = db.query(`select term, sum(doc) as d from temp.v where ${text} and term glob \"[a-z]*\" and term not glob \"*[^a-z]*\" group by term order by d desc limit 16`).all().map((r) => r.term);
  const p = letters.map((l) => l + "*").join(" ");
  for (const q of [p, `${p} ${words.slice(0, 2).join(" ")}`, `${p} ${words.slice(0, 13).join(" ")}`, words.join(" ")]) console.log(q);
' "$DATA_DIR/colony.db")"; fi
urlq() { bun -e 'console.log(encodeURIComponent(process.argv[1]))' "$1"; }

# Each candidate by relevance and by top (100 per page), timed through the server: best of 2
# after one warm-up request. The slowest is the worst case.
printf 'ms\tquery\n' >"$OUT_DIR/candidates.tsv"
WORST_URL="" WORST_MS=0 WORST_Q=""
while IFS= read -r q; do
  sorts=(relevance top)
  if [[ -n "$QUERY" ]]; then sorts=(relevance); fi
  for sort in "${sorts[@]}"; do
    url="$COLONY/api/v1/search?q=$(urlq "$q")&sort=$sort&limit=$SEARCH_LIMIT"
    curl -fsS -o /dev/null "$url"
    best=""
    for _ in 1 2; do
      t="$(curl -fsS -o /dev/null -w '%{time_total}' "$url")"
      t="$(bun -e 'console.log(Math.round(Number(process.argv[1]) * 1000))' "$t")"
      if [[ -z "$best" || "$t" -lt "$best" ]]; then best="$t"; fi
    done
    printf '%s\t%s (sort=%s)\n' "$best" "$q" "$sort" >>"$OUT_DIR/candidates.tsv"
    echo "  ${best} ms: $q (sort=$sort)" >&2
    if [[ "$best" -gt "$WORST_MS" ]]; then WORST_MS="$best"; WORST_URL="$url"; WORST_Q="$q (sort=$sort)"; fi
  done
done <<<"$CANDIDATES"
curl -fsS "$WORST_URL" -o "$OUT_DIR/worst-sample.json"
if [[ "$PROBE" == search && -z "$PROBE_QUERY" ]]; then PROBE_QUERY="$(sed -n '$p' <<<"$CANDIDATES" | cut -d' ' -f1)"; fi
PROBE_URL="$COLONY/health"
PROBE_NAME="/health"
if [[ "$PROBE" == search ]]; then PROBE_URL="$COLONY/api/v1/search?q=$(urlq "$PROBE_QUERY")"; PROBE_NAME="search \"$PROBE_QUERY\""; fi
WORST_TOTAL="$(bun -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).total)' "$OUT_DIR/worst-sample.json")"
echo "worst case: $WORST_Q, ${WORST_MS} ms alone, total $WORST_TOTAL" >&2

run_facts src migrations
# The worst-case searches come from one account (at most MAX_SEARCHES_PER_CALLER of its searches
# run at once: the others are answered 429 at once, counted as non-2xx); the probe is anonymous.
register_agent
SEARCH_TOKEN="$TOKEN"
POSTS="$(bun -e 'const { Database } = require("bun:sqlite"); const db = new Database(process.argv[1], { readonly: true }); console.log(db.query("select count(*) as n from posts").get().n)' "$DATA_DIR/colony.db")"

secs_of() { secs "$1"; }
health() { # log
  BENCH_DIR="$BENCH_DIR" BENCH_DELAY_MS="$HEALTH_DELAY_MS" timeout --signal=INT --kill-after=5 $(( $(secs_of "$DURATION") + 15 )) \
    wrk -t1 -c"$HEALTH_CONNECTIONS" -d"$DURATION" --timeout 5s --latency -s "$BENCH_DIR/probe.lua" "$PROBE_URL" >"$1" 2>&1
}

RESULTS="$OUT_DIR/results.tsv"
printf 'round\tname\trps\tp50_us\tp99_us\tmax_us\trequests\tnon2xx\terrors\n' >"$RESULTS"
row() { # round, name, log
  local f
  f="$(result_fields "$3" "$2" rps p50_us p99_us max_us requests non2xx errors)" || exit 1
  printf '%s\t%s\t%s\n' "$1" "$2" "$f" >>"$RESULTS"
}
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round/$ROUNDS: $PROBE_NAME alone ($DURATION)" >&2
  health "$OUT_DIR/r$round-health-before.txt"
  row "$round" "$PROBE_NAME alone, before" "$OUT_DIR/r$round-health-before.txt"

  echo "round $round/$ROUNDS: $SEARCH_CONNECTIONS connections of the worst search, /health after $WARMUP" >&2
  SEARCH_S=$(( $(secs_of "$WARMUP") + $(secs_of "$DURATION") + 2 ))
  BENCH_DIR="$BENCH_DIR" BENCH_TOKEN="$SEARCH_TOKEN" timeout --signal=INT --kill-after=5 $(( SEARCH_S + 90 )) \
    wrk -t1 -c"$SEARCH_CONNECTIONS" -d"${SEARCH_S}s" --timeout 60s --latency -s "$BENCH_DIR/get.lua" "$WORST_URL" >"$OUT_DIR/r$round-search.txt" 2>&1 &
  SEARCH_PID=$!
  sleep "$(secs_of "$WARMUP")"
  LOAD_DURING="$(cut -d' ' -f1-3 /proc/loadavg)"
  health "$OUT_DIR/r$round-health-during.txt"
  wait "$SEARCH_PID"
  row "$round" "$PROBE_NAME during $SEARCH_CONNECTIONS worst-case searches" "$OUT_DIR/r$round-health-during.txt"
  row "$round" "worst-case search, $SEARCH_CONNECTIONS connections" "$OUT_DIR/r$round-search.txt"

  # The server still ranks the searches wrk left in flight: wait until a cheap search is quick.
  for _ in $(seq 1 240); do
    t="$(curl -fsS -o /dev/null -w '%{time_total}' "$COLONY/api/v1/search?q=zzqx" || echo 9)"
    if bun -e 'process.exit(Number(process.argv[1]) < 0.1 ? 0 : 1)' "$t"; then break; fi
    sleep 0.5
  done
  echo "round $round/$ROUNDS: /health alone again" >&2
  health "$OUT_DIR/r$round-health-after.txt"
  row "$round" "$PROBE_NAME alone, after" "$OUT_DIR/r$round-health-after.txt"
done

{
  echo "### $PROBE_NAME while searching — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, wrk $(wrk -v 2>&1 | head -n1 | grep -o '[0-9][0-9.]*' | head -n1), Colony @ $GIT_REV, run as $(colony_kind), read cache ${COLONY_READ_CACHE_BYTES:-default}"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and the server share them); load average before / during the last loaded run / after: $LOAD_BEFORE / $LOAD_DURING / $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- data: copy of $FORUM_DATA, $POSTS posts; read workers: $(curl -fsS "$COLONY/health" | json_field read_workers)"
  echo "- worst case the caps allow on this data: \`$WORST_Q\`, limit=$SEARCH_LIMIT, total $WORST_TOTAL, ${WORST_MS} ms alone (candidates: $OUT_DIR/candidates.tsv)"
  echo "- the worst-case searches are one account's (at most 2 of them run at once; the others are answered 429, the non-2xx below); the probe is anonymous"
  echo "- $PROBE_NAME: wrk 1 thread, $HEALTH_CONNECTIONS connections, pause $HEALTH_DELAY_MS ms, $DURATION; searches: wrk 1 thread, $SEARCH_CONNECTIONS connections, from $WARMUP before to 2 s after the loaded /health run; $ROUNDS round(s)"
  echo
  echo "| round | run | req/s | p50 | p99 | max | non-2xx / errors |"
  echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
  tail -n +2 "$RESULTS" | while IFS=$'\t' read -r r name rps p50 p99 max requests non2xx errors; do
    bun -e '
      const [r, name, rps, p50, p99, max, non2xx, errors] = process.argv.slice(1);
      const ms = (us) => (Number(us) >= 1000 ? `${(Number(us) / 1000).toFixed(2)} ms` : `${us} µs`);
      console.log(`| ${r} | ${name} | ${Number(rps).toLocaleString("en-US", { maximumFractionDigits: 1 })} | ${ms(p50)} | ${ms(p99)} | ${ms(max)} | ${non2xx} / ${errors} |`);
    ' "$r" "$name" "$rps" "$p50" "$p99" "$max" "$non2xx" "$errors"
  done
} | tee "$OUT_DIR/report.md"
