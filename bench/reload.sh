#!/usr/bin/env bash
# A reload under load: `colony serve --workers 2` (the executable unless BINARY= is empty), wrk
# with 32 connections for 8 s, SIGHUP to the supervisor 2 s in; three times; then once more with
# 32 connections creating posts (each answered post must be in the database). Then 20 event-stream
# clients across one more reload (reload-streams.ts) and the commit-to-client latency of a direct
# message from one worker to a stream on the other, and on the same worker (cross-worker-latency.ts).
# Every request must be answered 2xx and no socket may fail.
set -euo pipefail
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
PORT="${COLONY_PORT:-18400}"
DATA="$(mktemp -d /tmp/colony-reload.XXXXXX)"
BIN="${BINARY-dist/colony}"
if [[ -n "$BIN" ]]; then CMD=("$ROOT/$BIN" serve); else CMD=(bun "$ROOT/src/main.ts" serve); fi
COLONY_WORKERS=2 COLONY_RATE_LIMIT_MULTIPLIER=0 COLONY_ACCESS_LOG=0 "${CMD[@]}" --port "$PORT" --data-dir "$DATA" >"$DATA/server.log" 2>&1 &
SUP=$!
trap 'kill "$SUP" 2>/dev/null; wait "$SUP" 2>/dev/null; rm -rf "$DATA"' EXIT
until curl -fsS -o /dev/null "http://127.0.0.1:$PORT/health"; do sleep 0.1; done
for run in 1 2 3; do
  wrk -t2 -c32 -d8s --latency "http://127.0.0.1:$PORT/api/v1/posts" >"$DATA/wrk-$run.txt" 2>&1 &
  WRK=$!
  sleep 2
  kill -HUP "$SUP"
  wait "$WRK" || true
  errors="$(grep -E 'Socket errors|Non-2xx' "$DATA/wrk-$run.txt" | xargs || true)"
  echo "run $run: $(grep 'requests in' "$DATA/wrk-$run.txt" | xargs); ${errors:-no socket errors, no non-2xx answers}; p99 $(grep ' 99%' "$DATA/wrk-$run.txt" | awk '{print $2}')"
done
# Writes across a reload: every post answered 201 is in the database once (the writer, worker 1,
# is replaced too; the other worker passes writes on to whichever writer listens).
json_field() { bun -e 'console.log(JSON.parse(await Bun.stdin.text())[process.argv[1]])' "$1"; }
API_KEY="$(curl -fsS -X POST "http://127.0.0.1:$PORT/api/v1/auth/register" -H 'Content-Type: application/json' -d '{"username":"reload-writer","display_name":"Reload Writer"}' | json_field api_key)"
TOKEN="$(curl -fsS -X POST "http://127.0.0.1:$PORT/api/v1/auth/token" -H 'Content-Type: application/json' -d "{\"api_key\":\"$API_KEY\"}" | json_field access_token)"
posts() { bun -e 'const { Database } = require("bun:sqlite"); const db = new Database(process.argv[1], { readonly: true }); db.exec("pragma busy_timeout = 5000"); console.log(db.query("select count(*) as n from posts").get().n)' "$DATA/colony.db"; }
BEFORE="$(posts)"
BENCH_DIR="$BENCH_DIR" BENCH_TOKEN="$TOKEN" BENCH_BODY='{"colony":"general","post_type":"discussion","title":"Written across a reload %d","body":"Both workers are replaced while this is sent."}' \
  wrk -t2 -c32 -d8s --latency -s "$BENCH_DIR/send.lua" "http://127.0.0.1:$PORT/api/v1/posts" >"$DATA/wrk-writes.txt" 2>&1 &
WRK=$!
sleep 2
kill -HUP "$SUP"
wait "$WRK" || true
sleep 1
errors="$(grep -E 'Socket errors|Non-2xx' "$DATA/wrk-writes.txt" | xargs || true)"
echo "writes (POST /api/v1/posts): $(grep 'requests in' "$DATA/wrk-writes.txt" | xargs); ${errors:-no socket errors, no non-2xx answers}; p99 $(grep ' 99%' "$DATA/wrk-writes.txt" | awk '{print $2}'); posts in the database: $(( $(posts) - BEFORE )) more"
echo "reloads completed: $(grep -c '"msg":"reloaded"' "$DATA/server.log")"
bun "$BENCH_DIR/reload-streams.ts" "http://127.0.0.1:$PORT" "$SUP"
echo "stream on worker 1, message through worker 2: $(bun "$BENCH_DIR/cross-worker-latency.ts" "http://127.0.0.1:$PORT" 1 2)"
echo "stream and message on worker 1:              $(bun "$BENCH_DIR/cross-worker-latency.ts" "http://127.0.0.1:$PORT" 1 1)"
