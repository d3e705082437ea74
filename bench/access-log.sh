#!/usr/bin/env bash
# Cost of the access log over HTTP: two Colony servers from source on fresh data folders, the
# first with COLONY_ACCESS_LOG=0 and the second with it on (both at log level info, stderr to a
# file in OUT_DIR as when a service manager redirects it), measured in alternating runs of one
# endpoint (lib.sh's measure_pairs): runs seconds apart see the same host, so the ratio of each
# pair is what to read.
#
#   bash bench/access-log.sh                                   # GET /api/v1/users/me, 6 pairs of 5 s
#   ENDPOINT=/api/v1 PAIRS=8 bash bench/access-log.sh          # the cheapest route (no auth)
#   BASELINE_TREE=/tmp/colony-before bash bench/access-log.sh  # first server from another source
#       tree (e.g. `git archive <commit> | tar -x -C /tmp/colony-before` with node_modules linked)
#
# Only 127.0.0.1 is ever targeted. Every wrk run is bounded by -d and by `timeout`; both servers
# are stopped on exit and their data folders removed.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults
PAIRS="${PAIRS:-6}"
PAIR_DURATION="${PAIR_DURATION:-5s}"
ENDPOINT="${ENDPOINT:-/api/v1/users/me}"
OFF_PORT="${OFF_PORT:-18096}"
ON_PORT="${ON_PORT:-18097}"
BASELINE_TREE="${BASELINE_TREE:-}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-access-log.XXXXXX)}"

require_tools wrk bun curl timeout
require_free_ports "$OFF_PORT" "$ON_PORT"
if [[ -n "$BASELINE_TREE" && ! -f "$BASELINE_TREE/src/main.ts" ]]; then
  echo "BASELINE_TREE=$BASELINE_TREE holds no src/main.ts" >&2
  exit 1
fi

with_data_dir access-log
mkdir -p "$OUT_DIR" "$DATA_DIR/a" "$DATA_DIR/b"
echo "results and logs: $OUT_DIR" >&2

# One process each (COLONY_WORKERS=1): the CPU per request is read from that process.
start_server() { # name, port, data dir, source tree, COLONY_ACCESS_LOG
  (
    cd "$4"
    exec env COLONY_DATA_DIR="$3" COLONY_HOST="$HOST" COLONY_PORT="$2" COLONY_RATE_LIMIT_MULTIPLIER=0 \
      COLONY_LOG_LEVEL=info COLONY_ACCESS_LOG="$5" COLONY_WORKERS=1 bun src/main.ts serve
  ) >"$OUT_DIR/$1.log" 2>&1 &
}

if [[ -n "$BASELINE_TREE" ]]; then A_NAME="before (BASELINE_TREE)"; else A_NAME="access log off"; fi
start_server a "$OFF_PORT" "$DATA_DIR/a" "${BASELINE_TREE:-$ROOT}" 0
EXTRA_PID=$!
wait_ready "http://$HOST:$OFF_PORT/health" "$EXTRA_PID" a 300
start_server b "$ON_PORT" "$DATA_DIR/b" "$ROOT" 1
COLONY_PID=$!
wait_ready "http://$HOST:$ON_PORT/health" "$COLONY_PID" b 300

COLONY="http://$HOST:$OFF_PORT"
register_agent
TOKEN_A="$TOKEN"
COLONY="http://$HOST:$ON_PORT"
register_agent
TOKEN_B="$TOKEN"
curl -fsS -o /dev/null -H "Authorization: Bearer $TOKEN_B" "$COLONY$ENDPOINT"
run_facts src

TICK_US=$(( 1000000 / $(getconf CLK_TCK) ))

# Alternating runs as measure_pairs does, plus each server's CPU time per request over the run:
# other work on the machine moves req/s a lot and a process's own CPU time far less.
PAIRS_TSV="$OUT_DIR/pairs.tsv"
printf 'pair\tname\trps\tp50_us\tp99_us\tcpu_us\n' >"$PAIRS_TSV"
TARGETS=("$A_NAME|http://$HOST:$OFF_PORT$ENDPOINT|$TOKEN_A|$EXTRA_PID" "access log on|http://$HOST:$ON_PORT$ENDPOINT|$TOKEN_B|$COLONY_PID")
for target in "${TARGETS[@]}"; do
  IFS='|' read -r name url token pid <<<"$target"
  run_wrk $(( $(secs "$WARMUP") + 15 )) "$WARMUP" "$url" get.lua "$token" "$OUT_DIR/pair-warmup.txt"
done
for pair in $(seq 1 "$PAIRS"); do
  which=0
  for target in "${TARGETS[@]}"; do
    which=$((which + 1))
    IFS='|' read -r name url token pid <<<"$target"
    echo "pair $pair/$PAIRS: $name ($PAIR_DURATION)" >&2
    log="$OUT_DIR/pair$pair-$which.txt"
    before=$(cpu_ticks "$pid")
    run_wrk $(( $(secs "$PAIR_DURATION") + 15 )) "$PAIR_DURATION" "$url" get.lua "$token" "$log"
    after=$(cpu_ticks "$pid")
    fields="$(result_fields "$log" "$name" rps p50_us p99_us requests)" || exit 1
    IFS=$'\t' read -r rps p50 p99 requests <<<"$fields"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$pair" "$name" "$rps" "$p50" "$p99" "$(awk -v t=$(( (after - before) * TICK_US )) -v n="$requests" 'BEGIN { printf "%.2f", t / n }')" >>"$PAIRS_TSV"
  done
done

{
  echo "### Access log cost, GET $ENDPOINT — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and the servers share them)"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections; $PAIRS pairs of $PAIR_DURATION runs after a $WARMUP warm-up of each"
  echo "- load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo "- access lines written by the second server: $(grep -c '"msg":"request"' "$OUT_DIR/b.log" || true) ($(du -h "$OUT_DIR/b.log" | cut -f1) of log)"
  echo
  bun "$BENCH_DIR/summarise.ts" "$PAIRS_TSV" --pairs
} | tee "$OUT_DIR/report.md"
