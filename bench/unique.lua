-- GET of the target URL with a query parameter x=<n> that no two requests share (each wrk thread
-- counts in its own range), plus the shared result line: every answer is new to the server's read
-- cache, which must stay within its byte budget (COLONY_READ_CACHE_BYTES) however many it sees.
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("base", threads * 1000000000)
end

local n = 0
function request()
  n = n + 1
  local path = wrk.path
  local sep = string.find(path, "?", 1, true) and "&" or "?"
  return wrk.format("GET", path .. sep .. "x=" .. tostring(base + n))
end
