-- A paced GET (a health probe): each connection waits BENCH_DELAY_MS (default 0: none) after an
-- answer before its next request, plus the shared result line.
dofile((os.getenv("BENCH_DIR") or "bench") .. "/report.lua")

local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
if pause > 0 then
  function delay()
    return pause
  end
end
