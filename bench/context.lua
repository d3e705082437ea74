-- GET /api/v1/posts/{id}/context rotating through the post ids in BENCH_IDS (one per line),
-- with an optional bearer token (BENCH_TOKEN), plus the shared result line.
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

local ids = {}
for line in io.lines(os.getenv("BENCH_IDS")) do
  if line ~= "" then ids[#ids + 1] = line end
end
if #ids == 0 then error("BENCH_IDS holds no ids") end

local token = os.getenv("BENCH_TOKEN")
local headers = {}
if token and token ~= "" then headers["Authorization"] = "Bearer " .. token end

local counter = 0
local started = false
function request()
  if not started then
    -- Threads start at different places in the list.
    counter = math.random(#ids)
    started = true
  end
  counter = counter % #ids + 1
  return wrk.format("GET", "/api/v1/posts/" .. ids[counter] .. "/context", headers)
end
