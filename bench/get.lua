-- Plain GET with an optional bearer token (BENCH_TOKEN), plus the shared result line.
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

local token = os.getenv("BENCH_TOKEN")
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end
