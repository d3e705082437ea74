#!/usr/bin/env bash
# Every benchmark in one command: cold start (bench/cold-start.ts), resident memory (memory.sh),
# run.sh, forum.sh, search.sh, messages.sh, search-health.sh, create.sh, queue.sh and vault.sh, against the compiled executable
# and from source, each with the read cache on (its default budget) and off
# (COLONY_READ_CACHE_BYTES=0), then one table of every figure against the raw baseline of its own
# run where the benchmark has one (run.sh: raw Bun.serve; search.sh: the bare FTS5 query).
#
#   FORUM_DATA=/tmp/forum-seed bash bench/all.sh          # reuse a seeded folder (copied, never changed)
#   bash bench/all.sh                                     # seeds one first (bench/seed-forum.ts: minutes)
#   SEED_ARGS="--posts 3000 --comments 6000 --votes 20000 --users 200" DURATION=2s WARMUP=1s \
#     PAIRS=0 bash bench/all.sh                           # a small, quick run that exercises everything
#   BENCHES="cold-start memory run" VARIANTS=binary bash bench/all.sh
#   BENCHES="forum create" VARIANTS=binary CACHES=off WORKERS="1 2" bash bench/all.sh
#
# Settings: BENCHES (cold-start memory run forum search messages search-health create queue vault), VARIANTS
# (binary source), CACHES (on off), WORKERS (1 2: the processes serving HTTP, passed as
# COLONY_WORKERS; 1 is one process, more a supervisor and that many workers), FORUM_DATA, SEED_ARGS,
# BUILD (1: `bun run build` first even if dist/colony exists), BINARY (the executable of the
# binary variant, dist/colony), COLD_RUNS (20), OUT_DIR, and what the benchmarks read (DURATION,
# WARMUP, ROUNDS, PAIRS, CONNECTIONS, THREADS, ...). Each benchmark's own report stays in
# OUT_DIR/<bench>-<variant>-cache-<on|off>-w<workers>/; the combined report is OUT_DIR/report.md,
# one row per endpoint and number of workers, with the server's CPU per request (every process of
# the instance) and, for more than one worker, the throughput against one process. Only
# 127.0.0.1 is targeted; every benchmark stops its servers on exit.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
BENCHES="${BENCHES:-cold-start memory run forum search messages search-health create queue vault}"
VARIANTS="${VARIANTS:-binary source}"
CACHES="${CACHES:-on off}"
WORKER_COUNTS="${WORKERS:-1 2}"
unset WORKERS COLONY_WORKERS
EXE="${BINARY:-dist/colony}"
FORUM_DATA="${FORUM_DATA:-}"
SEED_ARGS="${SEED_ARGS:-}"
COLD_RUNS="${COLD_RUNS:-20}"
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-all.XXXXXX)}"
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2

for tool in wrk bun curl timeout; do
  command -v "$tool" >/dev/null 2>&1 || { echo "missing $tool (Debian: apt-get install -y wrk curl; Bun 1.4.5 or newer)" >&2; exit 1; }
done

if [[ " $VARIANTS " == *" binary "* && "$EXE" == dist/colony ]] && { [[ "${BUILD:-0}" == 1 ]] || [[ ! -x "$ROOT/dist/colony" ]]; }; then
  echo "building dist/colony" >&2
  (cd "$ROOT" && bun run build) >&2
fi

needs_seed=0
for b in $BENCHES; do case "$b" in memory | forum | search | search-health) needs_seed=1 ;; esac; done
SEEDED=""
cleanup() { if [[ -n "$SEEDED" ]]; then rm -rf "$SEEDED"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
if [[ $needs_seed == 1 && -z "$FORUM_DATA" ]]; then
  SEEDED="$(mktemp -d /tmp/colony-all-seed.XXXXXX)"
  echo "seeding $SEEDED (bench/seed-forum.ts $SEED_ARGS)" >&2
  # shellcheck disable=SC2086
  (cd "$ROOT" && timeout 1200 bun "$BENCH_DIR/seed-forum.ts" "$SEEDED" $SEED_ARGS) >"$OUT_DIR/seed.log" 2>&1
  FORUM_DATA="$SEEDED"
fi

# The facts of the machine and the build, for the report.
{
  echo "- \`date -u\`: $(date -u '+%Y-%m-%d %H:%M UTC'); Colony @ $(git -C "$ROOT" rev-parse --short HEAD)$([[ -n "$(git -C "$ROOT" status --porcelain -- src migrations scripts 2>/dev/null)" ]] && echo "+dirty")"
  echo "- Bun $(bun --version); $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1); load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- benchmarks: $BENCHES; variants: $VARIANTS (executable: $EXE); read cache: $CACHES; workers: $WORKER_COUNTS; forum data: ${FORUM_DATA:-none}${SEED_ARGS:+ (seeded with $SEED_ARGS)}"
  echo "- wrk settings: DURATION=${DURATION:-default} WARMUP=${WARMUP:-default} ROUNDS=${ROUNDS:-1} PAIRS=${PAIRS:-default} CONNECTIONS=${CONNECTIONS:-32} THREADS=${THREADS:-2}"
} >"$OUT_DIR/facts.md"

failed=()
run_bench() { # bench, variant, cache, workers
  local bench="$1" variant="$2" cache="$3" workers="$4" dir env=()
  dir="$OUT_DIR/$bench-$variant-cache-$cache-w$workers"
  mkdir -p "$dir"
  if [[ "$variant" == binary ]]; then env+=(BINARY="$EXE"); else env+=(BINARY=); fi
  if [[ "$cache" == off ]]; then env+=(COLONY_READ_CACHE_BYTES=0); fi
  env+=(WORKERS="$workers")
  # The in-process webhook run does not depend on the variant: once.
  if [[ "$bench" == messages && -n "${WEBHOOKS_DONE:-}" ]]; then env+=(WEBHOOKS=0); fi
  echo "== $bench, $variant, read cache $cache, workers $workers (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  if (cd "$ROOT" && env "${env[@]}" OUT_DIR="$dir" FORUM_DATA="$FORUM_DATA" bash "$BENCH_DIR/$bench.sh") >"$dir/stdout.md" 2>"$dir/stderr.log"; then
    if [[ "$bench" == messages ]]; then WEBHOOKS_DONE=1; fi
  else
    echo "   $bench ($variant, cache $cache, workers $workers) failed; see $dir/stderr.log" >&2
    failed+=("$bench-$variant-cache-$cache-w$workers")
  fi
}

for bench in $BENCHES; do
  if [[ "$bench" == cold-start ]]; then
    # The read cache plays no part in a start; the variants in one interleaved run.
    targets=()
    # One run per number of workers (a start with workers includes theirs).
    for v in $VARIANTS; do case "$v" in binary) targets+=("$EXE") ;; source) targets+=(source) ;; esac; done
    for workers in $WORKER_COUNTS; do
      echo "== cold start: ${targets[*]}, workers $workers" >&2
      (cd "$ROOT" && BINARY="$(IFS=,; echo "${targets[*]}")" WORKERS="$workers" RUNS="$COLD_RUNS" TSV="$OUT_DIR/cold-start.tsv" bun "$BENCH_DIR/cold-start.ts") >>"$OUT_DIR/cold-start.md" 2>&1 || failed+=("cold-start-w$workers")
    done
    continue
  fi
  for variant in $VARIANTS; do
    for cache in $CACHES; do
      for workers in $WORKER_COUNTS; do run_bench "$bench" "$variant" "$cache" "$workers"; done
    done
  done
done

{
  echo "## All benchmarks — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  cat "$OUT_DIR/facts.md"
  echo "- load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  bun "$BENCH_DIR/all-summary.ts" "$OUT_DIR"
  if [[ ${#failed[@]} -gt 0 ]]; then
    echo
    echo "Failed (see their stderr.log): ${failed[*]}"
  fi
} | tee "$OUT_DIR/report.md"
[[ ${#failed[@]} -eq 0 ]]
