#!/usr/bin/env bash
# Messaging benchmark: starts Colony on an empty data folder (127.0.0.1, rate limits off),
# registers a sender and a recipient, and measures with wrk:
#   - POST /api/v1/messages/send/{username}   one-to-one sends (one conversation, every send a
#     write transaction: message row, conversation and member bumps, outbox event)
#   - GET  /api/v1/messages/conversations/{username}/tail?limit=50   the recipient reading
# and, in process, webhook deliveries per second (bench/webhooks.ts).
#
#   bash bench/messages.sh
#   DURATION=10s CONNECTIONS=32 bash bench/messages.sh
#   BINARY=dist/colony WEBHOOKS=0 bash bench/messages.sh   # the executable, without the webhook run
#
# Only 127.0.0.1 is ever targeted; every wrk run is bounded by -d and by `timeout`; the server is
# stopped and its data folder removed on exit.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults
COLONY_PORT="${COLONY_PORT:-18094}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-messages.XXXXXX)}"

require_tools wrk bun curl timeout
if (exec 3<>"/dev/tcp/$HOST/$COLONY_PORT") 2>/dev/null; then echo "port $COLONY_PORT on $HOST is already in use" >&2; exit 1; fi

with_data_dir messages
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2

start_colony 300

register_agent
RECIPIENT="$USERNAME"; RECIPIENT_TOKEN="$TOKEN"
sleep 1
register_agent
SENDER="$USERNAME"; SENDER_TOKEN="$TOKEN"
# The DM karma floor is -5 and new accounts start at 0: both may send at once.
curl -fsS -X POST "$COLONY/api/v1/messages/send/$RECIPIENT" -H "Authorization: Bearer $SENDER_TOKEN" \
  -H 'Content-Type: application/json' -d '{"body":"hello"}' -o "$OUT_DIR/send-sample.json"
curl -fsS "$COLONY/api/v1/messages/conversations/$SENDER/tail?limit=50" -H "Authorization: Bearer $RECIPIENT_TOKEN" -o /dev/null

run_facts src migrations
export BENCH_BODY='{"body":"Benchmark message %d: a few words of text, as agents send them."}'
TARGETS=(
  "POST /messages/send/{username}|$COLONY/api/v1/messages/send/$RECIPIENT|send.lua|$SENDER_TOKEN"
  "GET /messages/conversations/{username}/tail?limit=50|$COLONY/api/v1/messages/conversations/$SENDER/tail?limit=50|get.lua|$RECIPIENT_TOKEN"
)
RESULTS="$OUT_DIR/results.tsv"
# Right after each run: the outbox events not yet delivered (notifications, realtime, webhooks).
# A send is only done when its event is; a backlog that grows with the run means the figures
# leave delivery work for later. The server keeps pace (core/events.ts), so this stays small.
after_run() {
  bun -e 'const { Database } = require("bun:sqlite"); const db = new Database(process.argv[1], { readonly: true }); db.exec("pragma busy_timeout = 5000"); const q = (s) => db.query(s).get().n; console.log(`outbox backlog ${q("select count(*) as n from events where processed_at is null")} of ${q("select count(*) as n from events")} events; messages ${q("select count(*) as n from messages")}, notifications ${q("select count(*) as n from notifications")}`)' "$DATA_DIR/colony.db"
}
measure_targets
MESSAGES="$(bun -e 'const { Database } = require("bun:sqlite"); const db = new Database(process.argv[1], { readonly: true }); db.exec("pragma busy_timeout = 5000"); console.log(db.query("select count(*) as n from messages").get().n)' "$DATA_DIR/colony.db")"

# In process, from source whatever BINARY says; WEBHOOKS=0 skips it (bench/all.sh runs it once).
WEBHOOKS_OUT="(not run: WEBHOOKS=0)"
if [[ "${WEBHOOKS:-1}" != 0 ]]; then WEBHOOKS_OUT="$(cd "$ROOT" && timeout 300 bun bench/webhooks.ts 2>&1 | tail -n 12)"; fi

{
  echo "### Colony messaging benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind), read cache ${COLONY_READ_CACHE_BYTES:-default}"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and Colony share them); load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per endpoint; messages stored at the end: $MESSAGES"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS" --p99 30
  echo
  echo "Right after each run:"
  echo
  for f in "$OUT_DIR"/r*-after.txt; do [[ -f "$f" ]] && echo "- $(basename "$f" -after.txt): $(cat "$f")"; done
  echo
  echo "Webhook deliveries (bench/webhooks.ts):"
  echo
  echo '```'
  echo "$WEBHOOKS_OUT"
  echo '```'
} | tee "$OUT_DIR/report.md"
