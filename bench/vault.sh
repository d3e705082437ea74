#!/usr/bin/env bash
# Vault benchmark: starts Colony on an empty data folder (127.0.0.1, rate limits off), registers
# two agents and measures:
#   - GET /api/v1/vault/files/{filename}   a 1 MiB file (the JSON answer with its content), wrk
#   - PUT /api/v1/vault/files/{filename}   100 KiB of new content per request over 50 names, wrk
#     (bench/put.lua): each request writes and fsyncs a content file, indexes it and commits
#   - the same GET answer from bench/vault-bare.ts's memory, a raw Bun.serve: the read's baseline
#   - the same PUT to bench/vault-bare.ts    the baseline: Colony's own durable write (temporary file,
#     fsync, rename, the folder's fsync) behind a raw Bun.serve, nothing else; measured in the
#     same rounds, right after Colony's PUT, so both see the disk in the same state; and beneath
#     it the floor: the content written to a new file with one fsync and nothing else
#   - GET /api/v1/vault/export             a full vault (10 files of 1 MiB, 10 MiB), EXPORTS times
#     one after the other with curl, Colony's VmRSS sampled every 50 ms: its growth over the
#     resident memory before the export (peak minus before) and the time each took
# Targets: the read and the PUT at p99 under 20 ms at 32 connections; the export's RSS growth
# under 15 MiB.
#
#   bash bench/vault.sh
#   BINARY=dist/colony bash bench/vault.sh
#   DURATION=10s CONNECTIONS=32 ROUNDS=3 EXPORTS=5 bash bench/vault.sh
#
# Only 127.0.0.1 is ever targeted; every wrk run is bounded by -d and by `timeout`; the server is
# stopped and its data folder removed on exit.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults 10s
COLONY_PORT="${COLONY_PORT:-18098}"
BARE_PORT="${BARE_PORT:-18091}"
EXPORTS="${EXPORTS:-5}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-vault.XXXXXX)}"

require_tools wrk bun curl timeout
require_free_ports "$COLONY_PORT" "$BARE_PORT"

with_data_dir vault
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2

start_colony 300
BARE_DIR="$DATA_DIR/bare"
mkdir -p "$BARE_DIR"
BENCH_BARE_PORT="$BARE_PORT" BENCH_BARE_DIR="$BARE_DIR" bun "$BENCH_DIR/vault-bare.ts" >"$OUT_DIR/bare.log" 2>&1 &
EXTRA_PID=$!
BARE="http://$HOST:$BARE_PORT"
wait_ready "$BARE/health" "$EXTRA_PID" bare

register_agent
READ_TOKEN="$TOKEN"
sleep 1
register_agent
EXPORT_TOKEN="$TOKEN"

# A 1 MiB file to read, and a full vault (10 files of 1 MiB of varied text) to export.
(cd "$ROOT" && timeout 300 bun -e '
  const [base, readToken, exportToken] = process.argv.slice(1);
  const MiB = 1024 * 1024;
  const text = (seed) => {
    let s = "";
    for (let j = 0; s.length < MiB; j++) s += `line ${seed}-${j} ${((j * 2654435761 + seed) >>> 0).toString(36)} notes and plans\n`;
    return s.slice(0, MiB);
  };
  const put = async (token, name, content) => {
    const r = await fetch(`${base}/api/v1/vault/files/${name}`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ content }) });
    if (r.status !== 200) throw new Error(`PUT ${name}: ${r.status} ${await r.text()}`);
  };
  await put(readToken, "bench/big.txt", text(0));
  for (let i = 0; i < 10; i++) await put(exportToken, `full/f${i}.txt`, text(i + 1));
  console.log("seeded: a 1 MiB file, and a vault of 10 x 1 MiB");
' "$COLONY" "$READ_TOKEN" "$EXPORT_TOKEN") | tee "$OUT_DIR/seed.log" >&2
# The bare read's answer: Colony's own answer for the 1 MiB file, byte for byte.
curl -fsS "$COLONY/api/v1/vault/files/bench/big.txt" -H "Authorization: Bearer $READ_TOKEN" | curl -fsS -o /dev/null -X PUT --data-binary @- "$BARE/answer"
curl -fsS "$COLONY/api/v1/vault/status" -H "Authorization: Bearer $EXPORT_TOKEN" -o "$OUT_DIR/export-status.json"
echo "export vault: $(cat "$OUT_DIR/export-status.json")" >&2

run_facts src migrations
TARGETS=(
  "GET /vault/files/{filename} (1 MiB)|$COLONY/api/v1/vault/files/bench/big.txt|get.lua|$READ_TOKEN"
  "GET, the same answer from memory alone (vault-bare.ts)|$BARE/answer|get.lua|"
  "PUT /vault/files/{filename} (100 KiB)|$COLONY/api/v1/vault/files/bench|put.lua|$READ_TOKEN"
  "PUT, the durable write alone (vault-bare.ts)|$BARE/files/bench|put.lua|"
  "PUT, one fsynced write alone (vault-bare.ts)|$BARE/fsync/bench|put.lua|"
)
RESULTS="$OUT_DIR/results.tsv"
measure_targets

# The export: one at a time, VmRSS sampled every 50 ms from just before until it has ended.
printf 'run\tbefore_mib\tpeak_mib\tgrowth_mib\tseconds\tzip_bytes\n' >"$OUT_DIR/export.tsv"
for run in $(seq 1 "$EXPORTS"); do
  sleep 1
  before_kib="$(awk '/^VmRSS:/ { print $2 }' "/proc/$COLONY_PID/status")"
  (while kill -0 "$COLONY_PID" 2>/dev/null; do awk '/^VmRSS:/ { print $2 }' "/proc/$COLONY_PID/status" 2>/dev/null; sleep 0.05; done) >"$OUT_DIR/export-$run-rss.txt" &
  sampler=$!
  start_ns="$(date +%s%N)"
  timeout 120 curl -fsS "$COLONY/api/v1/vault/export" -H "Authorization: Bearer $EXPORT_TOKEN" -o "$OUT_DIR/export.zip"
  end_ns="$(date +%s%N)"
  sleep 0.2
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  peak_kib="$( (echo "$before_kib"; cat "$OUT_DIR/export-$run-rss.txt") | sort -n | tail -n1)"
  printf '%s\t%.1f\t%.1f\t%.1f\t%.2f\t%s\n' "$run" "$(echo "$before_kib / 1024" | bc -l)" "$(echo "$peak_kib / 1024" | bc -l)" \
    "$(echo "($peak_kib - $before_kib) / 1024" | bc -l)" "$(echo "($end_ns - $start_ns) / 1000000000" | bc -l)" "$(stat -c %s "$OUT_DIR/export.zip")" >>"$OUT_DIR/export.tsv"
done
# The archive holds the ten files whole.
(cd "$ROOT" && bun -e '
  const { unzipSync } = require("fflate");
  const files = unzipSync(new Uint8Array(await Bun.file(process.argv[1]).arrayBuffer()));
  const names = Object.keys(files).sort();
  const sizes = Object.values(files).map((b) => b.length);
  if (names.length !== 10 || sizes.some((n) => n !== 1024 * 1024)) throw new Error(`unexpected archive: ${names.join(", ")}`);
' "$OUT_DIR/export.zip")

{
  echo "### Colony vault benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind)"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and Colony share them); load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo "- data folder on $(df -T "$DATA_DIR" | awk 'NR==2 { print $2 }') ($(df "$DATA_DIR" | awk 'NR==2 { print $1 }'))"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per endpoint"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS" --p99 20
  echo
  echo "Export of a full vault (10 files of 1 MiB, 10 MiB), $EXPORTS runs one after the other (target: RSS growth under 15 MiB):"
  echo
  echo "| run | VmRSS before | peak during | growth | time | zip size |"
  echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
  tail -n +2 "$OUT_DIR/export.tsv" | while IFS=$'\t' read -r run before peak growth secs bytes; do
    echo "| $run | $before MiB | $peak MiB | $growth MiB | $secs s | $bytes B |"
  done
} | tee "$OUT_DIR/report.md"
