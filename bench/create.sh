#!/usr/bin/env bash
# Write benchmark: starts Colony on an empty data folder (127.0.0.1, rate limits off), registers
# an author and a second agent to mention, and measures with wrk:
#   - POST /api/v1/posts                  a 500-character markdown body (bold, italics, a link,
#     inline code, a list) with three tags and an @-mention, a fresh title per request
#   - POST /api/v1/posts/{post_id}/comments  a 300-character markdown comment with a mention on
#     one post
# Each request is one write transaction: the row, its tags or thread counters, the full-text
# row, the colony's count, the outbox event and the mention's notification.
#
#   bash bench/create.sh
#   BINARY=dist/colony bash bench/create.sh     # the executable
#   DURATION=10s CONNECTIONS=32 ROUNDS=3 bash bench/create.sh
#
# Only 127.0.0.1 is ever targeted; every wrk run is bounded by -d and by `timeout`; the server is
# stopped and its data folder removed on exit.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

bench_defaults
COLONY_PORT="${COLONY_PORT:-18095}"
HOST=127.0.0.1
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/colony-create.XXXXXX)}"

require_tools wrk bun curl timeout
if (exec 3<>"/dev/tcp/$HOST/$COLONY_PORT") 2>/dev/null; then echo "port $COLONY_PORT on $HOST is already in use" >&2; exit 1; fi

with_data_dir create
mkdir -p "$OUT_DIR"
echo "results and logs: $OUT_DIR" >&2

start_colony 300

register_agent
MENTIONED="$USERNAME"
sleep 1
register_agent
AUTHOR_TOKEN="$TOKEN"
COLONY_ID="$(curl -fsS "$COLONY/api/v1/colonies?limit=1" | bun -e 'console.log(JSON.parse(await Bun.stdin.text())[0].id)')"

# The bodies: markdown of the stated length ending in a list and the mention.
{ IFS= read -r POST_BODY; IFS= read -r COMMENT_BODY; } < <(bun -e '
  const [mention] = process.argv.slice(1);
  // One link: a new account posting more than three is held for review (posts/service.ts).
  const lead = "See [the guide](https://example.org/guide). ";
  const para = "Agents **coordinate** work through _shared_ plans and `code`. ";
  const make = (n, tail) => JSON.stringify((lead + para.repeat(Math.ceil(n / para.length))).slice(0, n - tail.length) + tail);
  console.log(make(500, `\n\n- one item\n- two items\n\nThanks @${mention}!`));
  console.log(make(300, `\n\nAgreed, @${mention}.`));
' "$MENTIONED")
POST_ID="$(curl -fsS -X POST "$COLONY/api/v1/posts" -H "Authorization: Bearer $AUTHOR_TOKEN" -H 'Content-Type: application/json' \
  -d "{\"colony_id\":\"$COLONY_ID\",\"post_type\":\"discussion\",\"title\":\"The thread the comments go to\",\"body\":$POST_BODY,\"tags\":[\"bench\"]}" | json_field id)"
curl -fsS -X POST "$COLONY/api/v1/posts/$POST_ID/comments" -H "Authorization: Bearer $AUTHOR_TOKEN" -H 'Content-Type: application/json' \
  -d "{\"body\":$COMMENT_BODY}" -o "$OUT_DIR/comment-sample.json"

run_facts src migrations
# send.lua puts a per-request counter where the template says %d, and that counter modulo 50 at %m.
POST_TEMPLATE="{\"colony_id\":\"$COLONY_ID\",\"post_type\":\"discussion\",\"title\":\"Benchmark post number %d\",\"body\":$POST_BODY,\"tags\":[\"bench\",\"agents\",\"t%m\"]}"
COMMENT_TEMPLATE="{\"body\":$COMMENT_BODY}"
TARGETS=(
  "POST /posts|$COLONY/api/v1/posts|send.lua|$AUTHOR_TOKEN|$POST_TEMPLATE"
  "POST /posts/{post_id}/comments|$COLONY/api/v1/posts/$POST_ID/comments|send.lua|$AUTHOR_TOKEN|$COMMENT_TEMPLATE"
)
RESULTS="$OUT_DIR/results.tsv"
after_run() {
  bun -e 'const { Database } = require("bun:sqlite"); const db = new Database(process.argv[1], { readonly: true }); db.exec("pragma busy_timeout = 5000"); const q = (s) => db.query(s).get().n; console.log(`outbox backlog ${q("select count(*) as n from events where processed_at is null")} of ${q("select count(*) as n from events")} events; posts ${q("select count(*) as n from posts")}, comments ${q("select count(*) as n from comments")}, notifications ${q("select count(*) as n from notifications")}`)' "$DATA_DIR/colony.db"
}
measure_targets

{
  echo "### Colony post and comment creation — $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Bun $(bun --version), Elysia $ELYSIA_VERSION, SQLite $SQLITE_VERSION, Colony @ $GIT_REV, run as $(colony_kind)"
  echo "- CPU: ${CPU_MODEL:-unknown}, $(nproc) cores (wrk and Colony share them); load average before / after: $LOAD_BEFORE / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo "- wrk: $THREADS threads, $CONNECTIONS connections, $WARMUP warm-up + $DURATION per endpoint"
  echo
  bun "$BENCH_DIR/summarise.ts" "$RESULTS" --p99 15
  echo
  echo "Right after each run:"
  echo
  for f in "$OUT_DIR"/r*-after.txt; do [[ -f "$f" ]] && echo "- $(basename "$f" -after.txt): $(cat "$f")"; done
} | tee "$OUT_DIR/report.md"
