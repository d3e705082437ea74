#!/usr/bin/env bash
# Two checkouts of Colony side by side on one endpoint, in alternating slices, for differences of
# a few per cent that sequential runs on a shared host cannot show (runs of one build there can
# differ by 2x from one minute to the next). Both servers run from source, each on a fresh data
# folder with an agent of its own, and stay up for the whole comparison; wrk loads one at a time.
#
#   bash bench/compare.sh /work/old /work/new            # two checkouts, dependencies installed
#   MODE=share bash bench/compare.sh /work/old .         # throughput against raw Bun.serve
#   ENDPOINT=/api/v1 SLICES=30 bash bench/compare.sh A B
#
# A checkout of an older commit: git worktree add --detach /tmp/old <rev>, then
# `bun install --frozen-lockfile` in it.
#
# MODE=cpu (default): both servers pinned to core 0 and wrk (1 thread) to core 1; each slice
# reads the server's CPU time (user and system, every thread) from /proc, so the figure is CPU per
# request, which the host's noise moves less than throughput. MODE=share: nothing pinned, wrk with
# THREADS threads as run.sh runs it, and a raw Bun.serve (raw-server.ts) measured before each
# pair, so each slice's figure is the share of the raw baseline. The order within a pair
# alternates. Prints every slice and then medians, quartiles and the median of the paired ratios
# B/A (compare-summary.ts).
#
# A difference of a few per cent needs more than one run: on a shared 2-vCPU host one run's pairs
# spread ±5-10 %, and the server in one position can read a few per cent higher for a whole run.
# Run it in both positions (A and B swapped) with e.g. SLICES=60 SLICE=2s, and take the geometric
# mean of the first run's ratio and the inverse of the second's.
#
# Settings: ENDPOINT (/api/v1/users/me, with the agent's bearer token), SLICES (20), SLICE (2s in
# cpu mode, 4s in share), WARMUP (3s), CONNECTIONS (32), THREADS (2, share mode), A_ENV / B_ENV
# (extra environment of either server, e.g. B_ENV="COLONY_READ_CACHE_BYTES=0"), OUT_DIR. Only
# 127.0.0.1 is targeted; both servers (and the baseline) are stopped on exit.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

if [[ $# -ne 2 ]]; then
  echo "usage: bash bench/compare.sh <checkout A> <checkout B>" >&2
  exit 2
fi
TREE_A="$(cd "$1" && pwd)"
TREE_B="$(cd "$2" && pwd)"
for t in "$TREE_A" "$TREE_B"; do
  if [[ ! -f "$t/src/main.ts" || ! -d "$t/node_modules" ]]; then
    echo "$t: not a Colony checkout with its dependencies installed (bun install --frozen-lockfile)" >&2
    exit 1
  fi
done

MODE="${MODE:-cpu}"
case "$MODE" in cpu | share) ;; *) echo "MODE is cpu or share" >&2; exit 2 ;; esac
ENDPOINT="${ENDPOINT:-/api/v1/users/me}"
SLICES="${SLICES:-20}"
if [[ "$MODE" == cpu ]]; then SLICE="${SLICE:-2s}"; else SLICE="${SLICE:-4s}"; fi
WARMUP="${WARMUP:-3s}"
CONNECTIONS="${CONNECTIONS:-32}"
THREADS="${THREADS:-2}"
HOST=127.0.0.1
PORT_A="${PORT_A:-18111}"
PORT_B="${PORT_B:-18112}"
RAW_PORT="${RAW_PORT:-18110}"
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-compare.XXXXXX)}"
mkdir -p "$OUT_DIR"

require_tools wrk bun curl timeout taskset
require_free_ports "$PORT_A" "$PORT_B" "$RAW_PORT"
if [[ "$MODE" == cpu && "$(nproc)" -lt 2 ]]; then echo "MODE=cpu needs two cores" >&2; exit 1; fi

DATA_A="$(mktemp -d /tmp/colony-compare-a.XXXXXX)"
DATA_B="$(mktemp -d /tmp/colony-compare-b.XXXXXX)"
PID_A=""
PID_B=""
PID_RAW=""
cleanup() {
  stop_pid "$PID_A"
  stop_pid "$PID_B"
  stop_pid "$PID_RAW"
  rm -rf "$DATA_A" "$DATA_B"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

SERVER_CORE=()
WRK_CORE=()
WRK_THREADS="$THREADS"
if [[ "$MODE" == cpu ]]; then
  SERVER_CORE=(taskset -c 0)
  WRK_CORE=(taskset -c 1)
  WRK_THREADS=1
fi

# One process each (COLONY_WORKERS=1; the server's default is one per core): the CPU read from
# /proc is that process's.
start() { # tree, data, port, extra env, log name -> pid on stdout
  (
    cd "$1"
    # shellcheck disable=SC2086
    exec "${SERVER_CORE[@]}" env COLONY_DATA_DIR="$2" COLONY_HOST="$HOST" COLONY_PORT="$3" \
      COLONY_RATE_LIMIT_MULTIPLIER=0 COLONY_LOG_LEVEL=warn COLONY_WORKERS=1 $4 bun src/main.ts serve
  ) >"$OUT_DIR/$5.log" 2>&1 &
  echo $!
}
PID_A="$(start "$TREE_A" "$DATA_A" "$PORT_A" "${A_ENV:-}" a)"
PID_B="$(start "$TREE_B" "$DATA_B" "$PORT_B" "${B_ENV:-}" b)"
wait_ready "http://$HOST:$PORT_A/health" "$PID_A" a 300
wait_ready "http://$HOST:$PORT_B/health" "$PID_B" b 300
if [[ "$MODE" == share ]]; then
  BENCH_RAW_PORT="$RAW_PORT" bun "$BENCH_DIR/raw-server.ts" >"$OUT_DIR/raw.log" 2>&1 &
  PID_RAW=$!
  wait_ready "http://$HOST:$RAW_PORT/" "$PID_RAW" raw
fi

COLONY="http://$HOST:$PORT_A"; register_agent; TOKEN_A="$TOKEN"
COLONY="http://$HOST:$PORT_B"; register_agent; TOKEN_B="$TOKEN"

TICKS_PER_S="$(getconf CLK_TCK)"

# One slice against a port: prints "requests/s [CPU µs per request]".
slice() { # port, token, pid (or empty), duration
  local before after log="$OUT_DIR/slice.log" rps
  [[ -n "$3" ]] && before="$(cpu_ticks "$3")"
  BENCH_DIR="$BENCH_DIR" BENCH_TOKEN="$2" timeout --signal=INT --kill-after=5 $(( $(secs "$4") + 10 )) \
    "${WRK_CORE[@]}" wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$4" --timeout 5s -s "$BENCH_DIR/get.lua" \
    "http://$HOST:$1${5:-$ENDPOINT}" >"$log" 2>&1
  rps="$(awk '/^Requests\/sec/ { print $2 }' "$log")"
  if [[ -z "$rps" ]]; then echo "wrk produced no result; see $log" >&2; exit 1; fi
  if [[ -n "$3" ]]; then
    after="$(cpu_ticks "$3")"
    echo "$rps $(bun -e 'const [t, r, s, hz] = process.argv.slice(1).map(Number); console.log(((t * 1e6) / hz / (r * s)).toFixed(2))' \
      "$(( after - before ))" "$rps" "$(secs "$4")" "$TICKS_PER_S")"
  else
    echo "$rps"
  fi
}

echo "results and logs: $OUT_DIR" >&2
echo "A: $TREE_A ($(git -C "$TREE_A" rev-parse --short HEAD 2>/dev/null || echo '?'))  B: $TREE_B ($(git -C "$TREE_B" rev-parse --short HEAD 2>/dev/null || echo '?'))  $MODE, $ENDPOINT, $SLICES slices of $SLICE" >&2
slice "$PORT_A" "$TOKEN_A" "" "$WARMUP" >/dev/null
slice "$PORT_B" "$TOKEN_B" "" "$WARMUP" >/dev/null
[[ "$MODE" == share ]] && slice "$RAW_PORT" "" "" "$WARMUP" / >/dev/null

RESULTS="$OUT_DIR/slices.tsv"
if [[ "$MODE" == cpu ]]; then
  printf 'slice\tA req/s\tA µs\tB req/s\tB µs\n' | tee "$RESULTS"
else
  printf 'slice\traw req/s\tA req/s\tB req/s\n' | tee "$RESULTS"
fi
for i in $(seq 1 "$SLICES"); do
  if [[ "$MODE" == cpu ]]; then
    if (( i % 2 )); then a="$(slice "$PORT_A" "$TOKEN_A" "$PID_A" "$SLICE")"; b="$(slice "$PORT_B" "$TOKEN_B" "$PID_B" "$SLICE")"
    else b="$(slice "$PORT_B" "$TOKEN_B" "$PID_B" "$SLICE")"; a="$(slice "$PORT_A" "$TOKEN_A" "$PID_A" "$SLICE")"; fi
    printf '%s\t%s\t%s\n' "$i" "${a// /$'\t'}" "${b// /$'\t'}" | tee -a "$RESULTS"
  else
    raw="$(slice "$RAW_PORT" "" "" "$SLICE" /)"
    if (( i % 2 )); then a="$(slice "$PORT_A" "$TOKEN_A" "" "$SLICE")"; b="$(slice "$PORT_B" "$TOKEN_B" "" "$SLICE")"
    else b="$(slice "$PORT_B" "$TOKEN_B" "" "$SLICE")"; a="$(slice "$PORT_A" "$TOKEN_A" "" "$SLICE")"; fi
    printf '%s\t%s\t%s\t%s\n' "$i" "$raw" "$a" "$b" | tee -a "$RESULTS"
  fi
done

bun "$BENCH_DIR/compare-summary.ts" "$MODE" "$RESULTS" | tee "$OUT_DIR/summary.md"
