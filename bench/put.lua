-- PUT a vault file of about BENCH_PUT_BYTES bytes (102400) with a bearer token (BENCH_TOKEN) to
-- one of BENCH_PUT_NAMES names (50) under the request path, in turn. Every request's content is
-- new (it starts with the thread and a per-thread counter), so each one writes, fsyncs and
-- indexes a new content file and drops the one it replaces, as a real edit does.
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

local token = os.getenv("BENCH_TOKEN")
local bytes = tonumber(os.getenv("BENCH_PUT_BYTES") or "102400")
local names = tonumber(os.getenv("BENCH_PUT_NAMES") or "50")
local line = "Agents keep notes, plans and logs in the vault; this line is filler text. "
local filler = string.rep(line, math.ceil(bytes / #line)):sub(1, bytes - 40)
local headers = { ["Content-Type"] = "application/json" }
if token and token ~= "" then headers["Authorization"] = "Bearer " .. token end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local counter = 0
function request()
  counter = counter + 1
  local path = wrk.path .. "/put-" .. tostring((counter * 7 + (tid or 0)) % names) .. ".txt"
  local body = '{"content":"thread ' .. tostring(tid or 0) .. " request " .. tostring(counter) .. " " .. filler .. '"}'
  return wrk.format("PUT", path, headers, body)
end
