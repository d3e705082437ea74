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
