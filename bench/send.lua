-- POST a JSON body to the URL with a bearer token (BENCH_TOKEN); the body is BENCH_BODY with
-- "%d" replaced by a per-request counter, so no two requests carry the same text.
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

local token = os.getenv("BENCH_TOKEN")
local template = os.getenv("BENCH_BODY") or '{"body":"message %d"}'
local headers = { ["Content-Type"] = "application/json" }
if token and token ~= "" then headers["Authorization"] = "Bearer " .. token end

local counter = 0
function request()
  counter = counter + 1
  return wrk.format("POST", nil, headers, string.format(template, counter))
end
