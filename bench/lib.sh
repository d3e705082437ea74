# Shared helpers of the benchmark scripts (sourced by run.sh, forum.sh, search.sh and
# messages.sh after they set BENCH_DIR).

ROOT="$(cd "$BENCH_DIR/.." && pwd)"

# Processes serving HTTP (`colony serve --workers`, passed as COLONY_WORKERS): 1 (default, one
# process, as every figure before 2026-12-02) or more (a supervisor and that many workers). The
# server's own default is the number of cores, so the scripts always say which.
WORKERS="${WORKERS:-${COLONY_WORKERS:-1}}"

# The settings every script reads from the environment, with their defaults (the duration of a
# measured run may differ per script: bench_defaults 12s).
bench_defaults() {
  CONNECTIONS="${CONNECTIONS:-32}"
  THREADS="${THREADS:-2}"
  DURATION="${DURATION:-${1:-10s}}"
  WARMUP="${WARMUP:-3s}"
  ROUNDS="${ROUNDS:-1}"
  ONLY="${ONLY:-}" # substring of an endpoint name: measure only the matching endpoints
}

# A fresh data folder in DATA_DIR; on exit the servers whose pids are in COLONY_PID and
# EXTRA_PID (a baseline server) are stopped and the folder is removed.
with_data_dir() { # name
  DATA_DIR="$(mktemp -d "/tmp/colony-$1-data.XXXXXX")"
  COLONY_PID=""
  EXTRA_PID=""
  trap stop_servers EXIT
  trap 'exit 130' INT TERM
}
stop_servers() {
  stop_pid "$EXTRA_PID"
  stop_pid "$COLONY_PID"
  rm -rf "$DATA_DIR"
}

# Fills DATA_DIR with the forum instance: a copy of FORUM_DATA (a folder seeded earlier by
# bench/seed-forum.ts, never changed), or a fresh seed with SEED_ARGS (up to ten minutes), its log
# in OUT_DIR/seed.log either way when there is one. Sets SEED_NOTE for the report.
prepare_forum_data() {
  if [[ -n "${FORUM_DATA:-}" ]]; then
    if [[ ! -f "$FORUM_DATA/colony.db" ]]; then
      echo "FORUM_DATA=$FORUM_DATA holds no colony.db (seed one with: bun bench/seed-forum.ts <dir>)" >&2
      exit 1
    fi
    echo "copying $FORUM_DATA" >&2
    cp -a "$FORUM_DATA/." "$DATA_DIR/"
    SEED_NOTE="reused $FORUM_DATA"
    if [[ -f "$FORUM_DATA/seed.log" ]]; then cp "$FORUM_DATA/seed.log" "$OUT_DIR/seed.log"; fi
  else
    echo "seeding $DATA_DIR (bench/seed-forum.ts ${SEED_ARGS:-})" >&2
    # shellcheck disable=SC2086
    (cd "$ROOT" && timeout 600 bun "$BENCH_DIR/seed-forum.ts" "$DATA_DIR" ${SEED_ARGS:-}) | tee "$OUT_DIR/seed.log" >&2
    SEED_NOTE="seeded in this run"
  fi
}

# Waits up to $4 tenths of a second (default 100) for `url` to answer; exits when `pid` dies
# first (showing the end of OUT_DIR/<name>.log) or time runs out.
wait_ready() { # url, pid, name, tries
  for _ in $(seq 1 "${4:-100}"); do
    if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
    if ! kill -0 "$2" 2>/dev/null; then
      echo "$3 exited during start-up; log: $OUT_DIR/$3.log" >&2
      tail -n 20 "$OUT_DIR/$3.log" >&2 || true
      exit 1
    fi
    sleep 0.1
  done
  echo "$3 did not answer $1 in time" >&2
  exit 1
}

# Starts Colony on DATA_DIR at HOST:COLONY_PORT with rate limits off, logging to
# OUT_DIR/colony.log, and waits up to $1 tenths of a second for /health: sets COLONY_PID and
# COLONY. From source (`bun src/main.ts serve`), or the executable BINARY when set (e.g.
# BINARY=dist/colony, relative to the repository). PROFILE=1 runs it under the CPU profiler, the
# profile going to OUT_DIR/profile when the server stops (from source `bun --cpu-prof`; the
# executable reads the same flags from BUN_OPTIONS). The caller's environment reaches the server,
# so e.g. COLONY_READ_CACHE_BYTES=0 turns its read cache off. WORKERS (1) is passed as
# COLONY_WORKERS; with more than one, COLONY_PID is the supervisor and the workers are its children
# (instance_pids). From source, PROFILE=1 profiles the supervisor only (the workers are started
# without bun's flags); the executable's workers inherit BUN_OPTIONS, each writing its own profile.
start_colony() { # tries
  local cmd=(bun src/main.ts serve) prof=() bin
  if [[ "${PROFILE:-0}" == 1 ]]; then prof=(--cpu-prof --cpu-prof-md --cpu-prof-dir="$OUT_DIR/profile" --cpu-prof-interval=250); fi
  if [[ -n "${BINARY:-}" ]]; then
    bin="$(colony_binary)" || exit 1
    cmd=("$bin" serve)
  elif [[ ${#prof[@]} -gt 0 ]]; then
    cmd=(bun "${prof[@]}" src/main.ts serve)
  fi
  (
    cd "$ROOT"
    if [[ -n "${BINARY:-}" && ${#prof[@]} -gt 0 ]]; then export BUN_OPTIONS="${prof[*]}"; fi
    exec env COLONY_DATA_DIR="$DATA_DIR" COLONY_HOST="$HOST" COLONY_PORT="$COLONY_PORT" \
      COLONY_RATE_LIMIT_MULTIPLIER=0 COLONY_LOG_LEVEL=warn COLONY_WORKERS="$WORKERS" "${cmd[@]}"
  ) >"$OUT_DIR/colony.log" 2>&1 &
  COLONY_PID=$!
  COLONY="http://$HOST:$COLONY_PORT"
  wait_ready "$COLONY/health" "$COLONY_PID" colony "${1:-300}"
}

# The executable named by BINARY (absolute, or relative to the repository); exits if missing.
colony_binary() {
  local bin="$BINARY"
  [[ "$bin" == /* ]] || bin="$ROOT/$bin"
  if [[ ! -x "$bin" ]]; then echo "BINARY=$BINARY: no executable at $bin (bun run build)" >&2; exit 1; fi
  echo "$bin"
}

# What runs as Colony, for reports: "dist/colony (executable), 1 process" or "bun src/main.ts
# (source), 2 workers" (and a supervisor).
colony_kind() {
  local procs="1 process"
  if [[ "$WORKERS" != 1 ]]; then procs="$WORKERS workers and a supervisor"; fi
  if [[ -n "${BINARY:-}" ]]; then echo "$BINARY (executable), $procs"; else echo "bun src/main.ts (source), $procs"; fi
}

# A process and its descendants, one pid a line: with WORKERS > 1 the supervisor and its workers
# (and a `colony migrate` it runs during a reload), with one process that process alone.
instance_pids() { # pid
  local todo=("$1") p k
  while [[ ${#todo[@]} -gt 0 ]]; do
    p="${todo[0]}"
    todo=("${todo[@]:1}")
    [[ -d "/proc/$p" ]] || continue
    echo "$p"
    for k in $(cat "/proc/$p"/task/*/children 2>/dev/null); do todo+=("$k"); done
  done
}

# Resident memory in MiB, tab-separated: VmRSS (now) and VmHWM (the peak so far), summed over
# the process and its descendants (instance_pids). With several processes the sum counts the
# pages they share (the executable's, SQLite's page cache is per process) once per process.
rss_mib() { # pid
  # shellcheck disable=SC2046
  awk '/^VmRSS:/ { r += $2 } /^VmHWM:/ { h += $2 } END { if (NR) printf "%.1f\t%.1f\n", r / 1024, h / 1024; else printf "\t\n" }' \
    $(instance_pids "$1" | sed 's|.*|/proc/&/status|') /dev/null 2>/dev/null || printf '\t\n'
}

# Samples the VmRSS of a process and its descendants (summed) every 0.2 s into a file (KiB, one a
# line) until stop_rss_sampler.
start_rss_sampler() { # pid, file
  (
    while kill -0 "$1" 2>/dev/null; do
      # shellcheck disable=SC2046
      awk '/^VmRSS:/ { r += $2 } END { if (r) print r }' $(instance_pids "$1" | sed 's|.*|/proc/&/status|') /dev/null 2>/dev/null
      sleep 0.2
    done
  ) >"$2" &
  RSS_SAMPLER_PID=$!
}

# Stops the sampler started last; prints its largest sample in MiB.
stop_rss_sampler() { # file
  kill "$RSS_SAMPLER_PID" 2>/dev/null || true
  wait "$RSS_SAMPLER_PID" 2>/dev/null || true
  sort -n "$1" | tail -n1 | awk '{ printf "%.1f\n", $1 / 1024 }'
}

port_busy() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# Exits unless the load generator and the tools the scripts use are installed.
require_tools() { # tool...
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "missing $tool (Debian: apt-get install -y wrk curl; Bun 1.4.5 or newer)" >&2; exit 1; }
  done
}

# Exits if one of the ports is already taken on $HOST.
require_free_ports() { # port...
  local p
  for p in "$@"; do
    if port_busy "$p"; then echo "port $p on $HOST is already in use (set the script's *_PORT variables)" >&2; exit 1; fi
  done
}

# Stops a server started by a script: TERM, up to 5 s for a clean exit (a supervisor stops its
# workers), then KILL to it and to any of its descendants still running.
stop_pid() {
  local pid="$1" pids
  [[ -n "$pid" ]] || return 0
  pids="$(instance_pids "$pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  # shellcheck disable=SC2086
  kill -9 $pids 2>/dev/null || true
}

# CPU time of a process (user and system, all its threads), in clock ticks (getconf CLK_TCK a second).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# CPU time of a whole instance in clock ticks: user and system time of the process and of each
# of its descendants (instance_pids: a supervisor and its workers), plus the time of the children
# each has waited for (a worker that died and was started again), fields 14-17 of /proc/<pid>/stat.
# A process is read once: a thread's time is in its process's line.
instance_cpu_ticks() { # pid
  # shellcheck disable=SC2046
  awk '{ t += $14 + $15 + $16 + $17 } END { print t + 0 }' $(instance_pids "$1" | sed 's|.*|/proc/&/stat|') /dev/null 2>/dev/null || echo 0
}

secs() { # "10s" / "1m" / "10" -> seconds
  local v="$1"
  case "$v" in
    *m) echo $(( ${v%m} * 60 )) ;;
    *s) echo "${v%s}" ;;
    *) echo "$v" ;;
  esac
}

json_field() { # field name; JSON on stdin
  bun -e 'const v = JSON.parse(await Bun.stdin.text())[process.argv[1]]; if (v === undefined) process.exit(1); console.log(v)' "$1"
}

# Registers a fresh agent on $COLONY and mints a token: sets USERNAME, API_KEY and TOKEN.
register_agent() {
  USERNAME="bench-$(date +%s)"
  API_KEY="$(curl -fsS -X POST "$COLONY/api/v1/auth/register" -H 'Content-Type: application/json' \
    -d "{\"username\":\"$USERNAME\",\"display_name\":\"Bench Agent\"}" | json_field api_key)"
  TOKEN="$(curl -fsS -X POST "$COLONY/api/v1/auth/token" -H 'Content-Type: application/json' \
    -d "{\"api_key\":\"$API_KEY\"}" | json_field access_token)"
}

# Facts recorded with every run: SQLITE_VERSION, ELYSIA_VERSION, CPU_MODEL, LOAD_BEFORE and
# GIT_REV (+dirty when the given paths have local changes).
run_facts() {
  SQLITE_VERSION="$(curl -fsS "$COLONY/health" | json_field sqlite)"
  ELYSIA_VERSION="$(bun -e 'console.log(require(process.argv[1]).version)' "$ROOT/node_modules/elysia/package.json")"
  CPU_MODEL="$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n1)"
  LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  GIT_REV="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  if [[ -n "$(git -C "$ROOT" status --porcelain -- "$@" 2>/dev/null)" ]]; then GIT_REV="$GIT_REV+dirty"; fi
}

run_wrk() { # limit, duration, url, script, token, log
  BENCH_DIR="$BENCH_DIR" BENCH_TOKEN="$5" BENCH_API_KEY="${API_KEY:-}" BENCH_IDS="${IDS_FILE:-}" \
    timeout --signal=INT --kill-after=5 "$1" \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2" --timeout 5s --latency -s "$BENCH_DIR/$4" "$3" >"$6" 2>&1
}

# The named fields of a wrk run's BENCH_RESULT line (bench/report.lua), tab-separated; fails,
# saying so, when the run produced none (callers: fields="$(result_fields …)" || exit 1).
result_fields() { # log, name, field...
  local line kv k out=()
  line="$(grep '^BENCH_RESULT' "$1" || true)"
  if [[ -z "$line" ]]; then
    echo "wrk produced no result for $2; see $1" >&2
    return 1
  fi
  local -A f=()
  for kv in ${line#BENCH_RESULT }; do f[${kv%%=*}]="${kv#*=}"; done
  for k in "${@:3}"; do out+=("${f[$k]}"); done
  (IFS=$'\t'; echo "${out[*]}")
}

# Paired measurement of two targets ("name|url|wrk script|token" each): PAIRS times the first
# then the second, PAIR_DURATION each, back to back after one warm-up of each, one row per run in
# $1 (pair, name, rps, p50_us, p99_us). On a host whose speed drifts over tens of seconds (shared
# cores), runs seconds apart see the same host, so the ratio of each pair varies far less than
# the ratio of runs minutes apart; bench/summarise.ts --pairs reports the median of the ratios.
measure_pairs() { # out.tsv, target A, target B
  local out="$1" pair which target name url script token log fields
  local warm_limit=$(( $(secs "$WARMUP") + 15 )) limit=$(( $(secs "$PAIR_DURATION") + 15 ))
  printf 'pair\tname\trps\tp50_us\tp99_us\n' >"$out"
  for target in "$2" "$3"; do
    IFS='|' read -r name url script token <<<"$target"
    run_wrk "$warm_limit" "$WARMUP" "$url" "$script" "$token" "$OUT_DIR/pair-warmup.txt"
  done
  for pair in $(seq 1 "$PAIRS"); do
    which=0
    for target in "$2" "$3"; do
      which=$((which + 1))
      IFS='|' read -r name url script token body <<<"$target"
      # A fifth field is the request body template of that target (send.lua's BENCH_BODY).
      if [[ -n "$body" ]]; then export BENCH_BODY="$body"; fi
      echo "pair $pair/$PAIRS: $name ($PAIR_DURATION)" >&2
      log="$OUT_DIR/pair$pair-$which.txt"
      run_wrk "$limit" "$PAIR_DURATION" "$url" "$script" "$token" "$log"
      fields="$(result_fields "$log" "$name" rps p50_us p99_us)" || exit 1
      printf '%s\t%s\t%s\n' "$pair" "$name" "$fields" >>"$out"
    done
  done
}

# Measures every "name|url|wrk script|token" of TARGETS, ROUNDS times (a warm-up whose numbers
# are dropped, then the measured run), and writes one row per run to $RESULTS. With ONLY set,
# only the matching targets run, plus the first (the baseline) when KEEP_BASELINE=1.
# For targets on Colony ($COLONY), Colony's resident memory goes to rss.tsv beside $RESULTS: before
# the measured run, its peak during the run (sampled every 0.2 s), at its end, RSS_SETTLE seconds
# (2) later with nothing running, and VmHWM (the peak since the server started), each summed
# over the instance's processes; and the column cpu_us of $RESULTS: the CPU time the instance
# (every process: instance_cpu_ticks) spent from just before the measured run to its end, per
# request answered (empty for targets not on Colony, such as a baseline).
measure_targets() {
  local warm_limit=$(( $(secs "$WARMUP") + 15 )) limit=$(( $(secs "$DURATION") + 15 ))
  local round i target name url script token body log fields rss_tsv rss_before rss_peak rss_end rss_after
  local cpu_before cpu_after cpu_us tick_us
  tick_us=$(( 1000000 / $(getconf CLK_TCK) ))
  rss_tsv="$(dirname "$RESULTS")/rss.tsv"
  printf 'round\tname\trss_before_mib\trss_peak_mib\trss_end_mib\trss_after_mib\thwm_mib\n' >"$rss_tsv"
  printf 'round\tname\trps\tp50_us\tp99_us\trequests\tnon2xx\terrors\tcpu_us\n' >"$RESULTS"
  for round in $(seq 1 "${ROUNDS:-1}"); do
    i=0
    for target in "${TARGETS[@]}"; do
      IFS='|' read -r name url script token body <<<"$target"
      # A fifth field is the request body template of that target (send.lua's BENCH_BODY).
      if [[ -n "$body" ]]; then export BENCH_BODY="$body"; fi
      i=$((i + 1))
      if [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && ! [[ "${KEEP_BASELINE:-0}" == 1 && $i -eq 1 ]]; then continue; fi
      echo "round $round/${ROUNDS:-1}: $name (warm-up $WARMUP, run $DURATION)" >&2
      run_wrk "$warm_limit" "$WARMUP" "$url" "$script" "$token" "$OUT_DIR/r$round-$i-warmup.txt"
      log="$OUT_DIR/r$round-$i.txt"
      local on_colony=0
      if [[ -n "${COLONY_PID:-}" && "$url" == "$COLONY"* ]]; then on_colony=1; fi
      if [[ $on_colony == 1 ]]; then
        rss_before="$(rss_mib "$COLONY_PID" | cut -f1)"
        start_rss_sampler "$COLONY_PID" "$OUT_DIR/r$round-$i-rss.txt"
        cpu_before="$(instance_cpu_ticks "$COLONY_PID")"
      fi
      run_wrk "$limit" "$DURATION" "$url" "$script" "$token" "$log"
      cpu_after=""
      if [[ $on_colony == 1 ]]; then cpu_after="$(instance_cpu_ticks "$COLONY_PID")"; fi
      if [[ $on_colony == 1 ]]; then
        rss_peak="$(stop_rss_sampler "$OUT_DIR/r$round-$i-rss.txt")"
        rss_end="$(rss_mib "$COLONY_PID" | cut -f1)"
        sleep "${RSS_SETTLE:-2}"
        rss_after="$(rss_mib "$COLONY_PID")"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "$rss_before" "$rss_peak" "$rss_end" "$rss_after" >>"$rss_tsv"
      fi
      # A benchmark may define after_run (e.g. to read a backlog the run left); its line is kept.
      if declare -F after_run >/dev/null; then after_run >"$OUT_DIR/r$round-$i-after.txt" 2>&1 || true; fi
      fields="$(result_fields "$log" "$name" rps p50_us p99_us requests non2xx errors)" || exit 1
      cpu_us=""
      if [[ -n "$cpu_after" ]]; then
        cpu_us="$(awk -v t="$(( (cpu_after - cpu_before) * tick_us ))" -v n="$(cut -f4 <<<"$fields")" 'BEGIN { if (n > 0) printf "%.1f", t / n }')"
      fi
      printf '%s\t%s\t%s\t%s\n' "$round" "$name" "$fields" "$cpu_us" >>"$RESULTS"
    done
  done
}
