# Shared helpers of the benchmark scripts (sourced by run.sh, forum.sh and search.sh).

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

# Measures every "name|url|wrk script|token" of TARGETS, ROUNDS times (a warm-up whose numbers
# are dropped, then the measured run), and writes one row per run to $RESULTS. With ONLY set,
# only the matching targets run, plus the first (the baseline) when KEEP_BASELINE=1.
measure_targets() {
  local warm_limit=$(( $(secs "$WARMUP") + 15 )) limit=$(( $(secs "$DURATION") + 15 ))
  local round i target name url script token log line kv
  printf 'round\tname\trps\tp50_us\tp99_us\trequests\tnon2xx\terrors\n' >"$RESULTS"
  for round in $(seq 1 "${ROUNDS:-1}"); do
    i=0
    for target in "${TARGETS[@]}"; do
      IFS='|' read -r name url script token <<<"$target"
      i=$((i + 1))
      if [[ -n "${ONLY:-}" && "$name" != *"$ONLY"* ]] && ! [[ "${KEEP_BASELINE:-0}" == 1 && $i -eq 1 ]]; then continue; fi
      echo "round $round/${ROUNDS:-1}: $name (warm-up $WARMUP, run $DURATION)" >&2
      run_wrk "$warm_limit" "$WARMUP" "$url" "$script" "$token" "$OUT_DIR/r$round-$i-warmup.txt"
      log="$OUT_DIR/r$round-$i.txt"
      run_wrk "$limit" "$DURATION" "$url" "$script" "$token" "$log"
      line="$(grep '^BENCH_RESULT' "$log" || true)"
      if [[ -z "$line" ]]; then
        echo "wrk produced no result for $name; see $log" >&2
        exit 1
      fi
      local -A f=()
      for kv in ${line#BENCH_RESULT }; do f[${kv%%=*}]="${kv#*=}"; done
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "${f[rps]}" "${f[p50_us]}" "${f[p99_us]}" \
        "${f[requests]}" "${f[non2xx]}" "${f[errors]}" >>"$RESULTS"
      unset f
    done
  done
}
