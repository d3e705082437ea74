-- POST a JSON body to the URL with a bearer token (BENCH_TOKEN); the body is BENCH_BODY with
-- every "%d" replaced by a per-request counter, so no two requests carry the same text, and every
-- "%m" by that counter modulo 50 (a bounded set of values, e.g. tags).
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

local token = os.getenv("BENCH_TOKEN")
local template = os.getenv("BENCH_BODY") or '{"body":"message %d"}'
local headers = { ["Content-Type"] = "application/json" }
if token and token ~= "" then headers["Authorization"] = "Bearer " .. token end

local counter = 0
function request()
  counter = counter + 1
  local body = template:gsub("%%d", tostring(counter)):gsub("%%m", tostring(counter % 50))
  return wrk.format("POST", nil, headers, body)
end
